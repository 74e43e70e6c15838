// The one translation unit that defines oxir::infer_shapes and OpRegistry::standard for the test
// programs built with OXIR_SEPARATE_INFER (library oxir_test_infer, see tests/CMakeLists.txt and
// <oxir/infer.hpp>).
#define OXIR_INFER_IMPLEMENTATION
#include <oxir/infer.hpp>
