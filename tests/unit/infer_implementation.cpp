// The one translation unit of oxir_tests that defines oxir::infer_shapes and
// OpRegistry::standard (the target builds with OXIR_SEPARATE_INFER; see <oxir/infer.hpp>).
#define OXIR_INFER_IMPLEMENTATION
#include <oxir/infer.hpp>
