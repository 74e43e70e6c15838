#pragma once
// Everything about ONNX element types in one include: the DataType enum and its facts, the exact
// low-precision value types, the DataType <-> C++ type traits, and sub-byte packing.

#include "oxir/core/data_type.hpp"
#include "oxir/core/dtype_traits.hpp"
#include "oxir/core/float_types.hpp"
#include "oxir/core/int_types.hpp"
#include "oxir/core/packing.hpp"
