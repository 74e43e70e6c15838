#pragma once
// oxir: a header-only C++20 library for the ONNX intermediate representation.
// This umbrella header includes every public part; single_include/oxir.hpp is generated from it.

#include "analysis/check.hpp"
#include "analysis/topo.hpp"
#include "analysis/use_def.hpp"
#include "core/element_types.hpp"
#include "io.hpp"
#include "infer.hpp"
#include "ir.hpp"
#include "rewrite/builder.hpp"
#include "rewrite/compose.hpp"
#include "rewrite/cse.hpp"
#include "rewrite/edit.hpp"
#include "rewrite/extract.hpp"
#include "rewrite/fold.hpp"
#include "rewrite/inline.hpp"
#include "rewrite/noop.hpp"
#include "rewrite/pattern.hpp"
#include "rewrite/remove_unused.hpp"
#include "rewrite/version.hpp"
