#pragma once
// The object model plus reading and writing ONNX files (no inference): the native codec,
// memory-mapped loading, external data, ONNX's textual syntax.

#include "io/decode.hpp"
#include "io/encode.hpp"
#include "io/mapped_file.hpp"
#include "io/model_file.hpp"
#include "io/text.hpp"
#include "io/wire.hpp"
#include "ir.hpp"
