// The doctest runner of oxir_tests. The test files are compiled ten to a translation unit (see
// tests/CMakeLists.txt, OXIR_TEST_UNITY_BUILD), so a new tests/unit/test_X.cpp puts everything
// after its #includes into `namespace oxir_unit_test_X { ... }`, as the others do.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
