#pragma once
// The object model: everything a model holds, as regular C++ values, plus views, printing,
// topological order, the use-def index and the structural checker. Include this when you need
// no I/O or inference.

#include "analysis/check.hpp"
#include "analysis/topo.hpp"
#include "analysis/use_def.hpp"
#include "core/data_type.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "ir/box.hpp"
#include "ir/buffer.hpp"
#include "ir/common.hpp"
#include "ir/function.hpp"
#include "ir/graph.hpp"
#include "ir/model.hpp"
#include "ir/print.hpp"
#include "ir/shape.hpp"
#include "ir/tensor.hpp"
#include "ir/type.hpp"
#include "ir/value_info.hpp"
#include "ir/views.hpp"
#include "ir/wire_info.hpp"
