#pragma once
// Readable printing of every ir type, in the style of ONNX's textual syntax:
//   <ir_version: 10, opset_import: ["" : 21]>
//   main (float[N,3] X) => (float[N,4] Y) <float[3,4] W = {...}> { Y = MatMul (X, W) }

#include <bit>
#include <complex>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include "../core/data_type.hpp"
#include "../core/dtype_traits.hpp"
#include "../core/float_types.hpp"
#include "../core/int_types.hpp"
#include "model.hpp"

namespace oxir {

namespace detail {

/// Lower-case ONNX text name of an element type ("float", "bfloat16", ...).
inline std::string text_type_name(DataType t) {
  std::string s(data_type_name(t));
  for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (!is_known(t)) s = "dtype" + std::to_string(static_cast<std::int32_t>(t));
  return s;
}

inline void print_quoted(std::ostream& os, std::string_view s) {
  os << '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') os << '\\' << c;
    else if (c == '\n') os << "\\n";
    else if (u < 0x20) os << "\\x" << std::hex << std::setw(2) << std::setfill('0') << int(u) << std::dec << std::setfill(' ');
    else os << c;
  }
  os << '"';
}

inline void print_float(std::ostream& os, double v) {
  std::ostringstream tmp;
  tmp << std::setprecision(9) << v;
  os << tmp.str();
}

// Prints element i of a tensor whose payload size is already validated.
inline void print_element(std::ostream& os, const Tensor& t, std::size_t i) {
  switch (t.data_type) {
    case DataType::FLOAT: return print_float(os, t.element<float>(i));
    case DataType::DOUBLE: return print_float(os, t.element<double>(i));
    case DataType::FLOAT16: return print_float(os, static_cast<float>(t.element<float16>(i)));
    case DataType::BFLOAT16: return print_float(os, static_cast<float>(t.element<bfloat16>(i)));
    case DataType::FLOAT8E4M3FN: return print_float(os, static_cast<float>(t.element<float8e4m3fn>(i)));
    case DataType::FLOAT8E4M3FNUZ: return print_float(os, static_cast<float>(t.element<float8e4m3fnuz>(i)));
    case DataType::FLOAT8E5M2: return print_float(os, static_cast<float>(t.element<float8e5m2>(i)));
    case DataType::FLOAT8E5M2FNUZ: return print_float(os, static_cast<float>(t.element<float8e5m2fnuz>(i)));
    case DataType::FLOAT8E8M0: return print_float(os, static_cast<float>(t.element<float8e8m0>(i)));
    case DataType::FLOAT4E2M1: return print_float(os, static_cast<float>(t.element<float4e2m1>(i)));
    case DataType::INT8: os << int(t.element<std::int8_t>(i)); return;
    case DataType::UINT8: os << unsigned(t.element<std::uint8_t>(i)); return;
    case DataType::INT16: os << t.element<std::int16_t>(i); return;
    case DataType::UINT16: os << t.element<std::uint16_t>(i); return;
    case DataType::INT32: os << t.element<std::int32_t>(i); return;
    case DataType::UINT32: os << t.element<std::uint32_t>(i); return;
    case DataType::INT64: os << t.element<std::int64_t>(i); return;
    case DataType::UINT64: os << t.element<std::uint64_t>(i); return;
    case DataType::BOOL: os << (std::to_integer<int>(t.bytes()[i]) != 0 ? "1" : "0"); return;
    case DataType::INT4: os << static_cast<int>(t.element<int4>(i)); return;
    case DataType::UINT4: os << static_cast<int>(t.element<uint4>(i)); return;
    case DataType::INT2: os << static_cast<int>(t.element<int2>(i)); return;
    case DataType::UINT2: os << static_cast<int>(t.element<uint2>(i)); return;
    case DataType::COMPLEX64: {
      auto c = t.element<std::complex<float>>(i);
      os << '(';
      print_float(os, c.real());
      os << ',';
      print_float(os, c.imag());
      os << ')';
      return;
    }
    case DataType::COMPLEX128: {
      auto c = t.element<std::complex<double>>(i);
      os << '(';
      print_float(os, c.real());
      os << ',';
      print_float(os, c.imag());
      os << ')';
      return;
    }
    case DataType::STRING: print_quoted(os, t.strings[i]); return;
    default: os << '?';
  }
}

/// Prints nested structures with indentation; `limit` caps how many tensor elements are shown.
class Printer {
 public:
  explicit Printer(std::ostream& os, std::size_t limit = 8) : os_(os), limit_(limit) {}

  void dim(const Dim& d) {
    if (d.is_value()) os_ << d.dim_value();
    else if (d.is_param()) os_ << d.dim_param();
    else os_ << '?';
  }
  void shape(const Shape& s) {
    os_ << '[';
    for (std::size_t i = 0; i < s.dims.size(); ++i) {
      if (i) os_ << ',';
      dim(s.dims[i]);
    }
    os_ << ']';
  }
  void type(const Type& t) {
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate>) os_ << "?";
          else if constexpr (std::is_same_v<V, TensorType>) {
            os_ << text_type_name(v.elem_type);
            if (v.shape) shape(*v.shape);
          } else if constexpr (std::is_same_v<V, SparseTensorType>) {
            os_ << "sparse_tensor(" << text_type_name(v.elem_type);
            if (v.shape) shape(*v.shape);
            os_ << ')';
          } else if constexpr (std::is_same_v<V, SequenceType>) {
            os_ << "seq(";
            boxed_type(v.elem_type);
            os_ << ')';
          } else if constexpr (std::is_same_v<V, OptionalType>) {
            os_ << "optional(";
            boxed_type(v.elem_type);
            os_ << ')';
          } else if constexpr (std::is_same_v<V, MapType>) {
            os_ << "map(" << text_type_name(v.key_type) << ", ";
            boxed_type(v.value_type);
            os_ << ')';
          } else if constexpr (std::is_same_v<V, OpaqueType>) {
            os_ << "opaque(";
            print_quoted(os_, v.domain);
            os_ << ", ";
            print_quoted(os_, v.name);
            os_ << ')';
          }
        },
        t.value);
  }
  void value_info(const ValueInfo& v) {
    if (v.type) {
      type(*v.type);
      os_ << ' ';
    }
    os_ << name(v.name);
  }
  void tensor(const Tensor& t) {
    os_ << text_type_name(t.data_type) << '[';
    for (std::size_t i = 0; i < t.dims.size(); ++i) os_ << (i ? "," : "") << t.dims[i];
    os_ << ']';
    if (!t.name.empty()) os_ << ' ' << name(t.name);
    os_ << " = ";
    if (t.is_external()) {
      os_ << "external(";
      print_quoted(os_, find_entry(t.external_data, "location").value_or(""));
      os_ << ")";
      return;
    }
    const auto count = t.element_count();
    if (!count) {
      os_ << "<invalid dims>";
      return;
    }
    if (t.data_type != DataType::STRING) {
      const auto need = t.expected_bytes();
      if (!need || *need != t.data.size()) {
        os_ << "<payload of " << t.data.size() << " bytes does not fit the dims>";
        return;
      }
    } else if (t.strings.size() != *count) {
      os_ << "<" << t.strings.size() << " strings do not fit the dims>";
      return;
    }
    os_ << '{';
    const auto shown = std::min<std::uint64_t>(*count, limit_);
    for (std::size_t i = 0; i < shown; ++i) {
      if (i) os_ << ", ";
      print_element(os_, t, i);
    }
    if (shown < *count) os_ << ", ... (" << *count << " elements)";
    os_ << '}';
  }
  void attribute(const Attribute& a) {
    os_ << a.name;
    if (!a.ref_attr_name.empty()) {
      os_ << ": " << attribute_type_name(a.type) << " = @" << a.ref_attr_name;
      return;
    }
    os_ << " = ";
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate>) os_ << "<none>";
          else if constexpr (std::is_same_v<V, float>) print_float(os_, v);
          else if constexpr (std::is_same_v<V, std::int64_t>) os_ << v;
          else if constexpr (std::is_same_v<V, std::string>) print_quoted(os_, v);
          else if constexpr (std::is_same_v<V, Box<Tensor>>) v ? tensor(*v) : void(os_ << "<none>");
          else if constexpr (std::is_same_v<V, Box<Graph>>) v ? graph(*v) : void(os_ << "<none>");
          else if constexpr (std::is_same_v<V, Box<SparseTensor>>) v ? sparse(*v) : void(os_ << "<none>");
          else if constexpr (std::is_same_v<V, Box<Type>>) v ? type(*v) : void(os_ << "<none>");
          else list(v);
        },
        a.value);
  }
  void node(const Node& n) {
    for (std::size_t i = 0; i < n.outputs.size(); ++i) os_ << (i ? ", " : "") << name(n.outputs[i]);
    os_ << (n.outputs.empty() ? "" : " ") << "= ";
    if (!n.domain.empty()) os_ << n.domain << '.';
    os_ << n.op_type;
    if (!n.overload.empty()) os_ << ':' << n.overload;
    if (!n.attributes.empty()) {
      os_ << " <";
      for (std::size_t i = 0; i < n.attributes.size(); ++i) {
        if (i) os_ << ", ";
        attribute(n.attributes[i]);
      }
      os_ << '>';
    }
    os_ << " (";
    for (std::size_t i = 0; i < n.inputs.size(); ++i) os_ << (i ? ", " : "") << name(n.inputs[i]);
    os_ << ')';
  }
  void graph(const Graph& g) {
    os_ << (g.name.empty() ? "graph" : g.name) << " (";
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      if (i) os_ << ", ";
      value_info(g.inputs[i]);
    }
    os_ << ") => (";
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
      if (i) os_ << ", ";
      value_info(g.outputs[i]);
    }
    os_ << ')';
    if (!g.initializers.empty() || !g.sparse_initializers.empty()) {
      os_ << " <";
      bool first = true;
      for (const auto& t : g.initializers) {
        os_ << (first ? "" : ", ");
        first = false;
        tensor(t);
      }
      for (const auto& s : g.sparse_initializers) {
        os_ << (first ? "" : ", ");
        first = false;
        sparse(s);
      }
      os_ << '>';
    }
    os_ << " {\n";
    ++depth_;
    for (const auto& v : g.value_info) {
      indent();
      os_ << "# ";
      value_info(v);
      os_ << '\n';
    }
    for (const auto& n : g.nodes) {
      indent();
      node(n);
      os_ << '\n';
    }
    --depth_;
    indent();
    os_ << '}';
  }
  void function(const Function& f) {
    os_ << "<domain: ";
    print_quoted(os_, f.domain);
    opsets(f.opset_imports);
    os_ << ">\n" << f.name;
    if (!f.overload.empty()) os_ << ':' << f.overload;
    if (!f.attributes.empty() || !f.attribute_protos.empty()) {
      os_ << " <";
      bool first = true;
      for (const auto& a : f.attributes) {
        os_ << (first ? "" : ", ") << a;
        first = false;
      }
      for (const auto& a : f.attribute_protos) {
        os_ << (first ? "" : ", ");
        first = false;
        attribute(a);
      }
      os_ << '>';
    }
    os_ << " (";
    for (std::size_t i = 0; i < f.inputs.size(); ++i) os_ << (i ? ", " : "") << name(f.inputs[i]);
    os_ << ") => (";
    for (std::size_t i = 0; i < f.outputs.size(); ++i) os_ << (i ? ", " : "") << name(f.outputs[i]);
    os_ << ") {\n";
    ++depth_;
    for (const auto& n : f.nodes) {
      indent();
      node(n);
      os_ << '\n';
    }
    --depth_;
    indent();
    os_ << '}';
  }
  void model(const Model& m) {
    os_ << "<ir_version: " << m.ir_version;
    opsets(m.opset_imports);
    if (!m.producer_name.empty()) {
      os_ << ", producer_name: ";
      print_quoted(os_, m.producer_name);
    }
    if (!m.producer_version.empty()) {
      os_ << ", producer_version: ";
      print_quoted(os_, m.producer_version);
    }
    if (!m.domain.empty()) {
      os_ << ", domain: ";
      print_quoted(os_, m.domain);
    }
    if (m.model_version != 0) os_ << ", model_version: " << m.model_version;
    os_ << ">\n";
    graph(m.graph);
    os_ << '\n';
    for (const auto& f : m.functions) {
      function(f);
      os_ << '\n';
    }
  }
  void sparse(const SparseTensor& s) {
    os_ << "sparse(";
    os_ << "dims [";
    for (std::size_t i = 0; i < s.dims.size(); ++i) os_ << (i ? "," : "") << s.dims[i];
    os_ << "], values ";
    tensor(s.values);
    os_ << ", indices ";
    tensor(s.indices);
    os_ << ')';
  }

 private:
  // Names that are not plain identifiers are quoted, as the textual syntax requires.
  static std::string name(const std::string& n) {
    bool plain = !n.empty() && !(n[0] >= '0' && n[0] <= '9');
    for (char c : n)
      plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
    if (plain) return n;
    std::ostringstream s;
    print_quoted(s, n);
    return s.str();
  }
  void indent() {
    for (int i = 0; i < depth_; ++i) os_ << "  ";
  }
  void opsets(const std::vector<OperatorSetId>& o) {
    os_ << ", opset_import: [";
    for (std::size_t i = 0; i < o.size(); ++i) {
      if (i) os_ << ", ";
      print_quoted(os_, o[i].domain);
      os_ << " : " << o[i].version;
    }
    os_ << ']';
  }
  void boxed_type(const Box<Type>& t) {
    if (t) type(*t);
    else os_ << '?';
  }
  template <class V>
  void list(const std::vector<V>& v) {
    os_ << '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) os_ << ", ";
      if constexpr (std::is_same_v<V, float>) print_float(os_, v[i]);
      else if constexpr (std::is_same_v<V, std::int64_t>) os_ << v[i];
      else if constexpr (std::is_same_v<V, std::string>) print_quoted(os_, v[i]);
      else if constexpr (std::is_same_v<V, Tensor>) tensor(v[i]);
      else if constexpr (std::is_same_v<V, Graph>) graph(v[i]);
      else if constexpr (std::is_same_v<V, SparseTensor>) sparse(v[i]);
      else if constexpr (std::is_same_v<V, Type>) type(v[i]);
    }
    os_ << ']';
  }

  std::ostream& os_;
  std::size_t limit_;
  int depth_ = 0;
};

}  // namespace detail

inline std::ostream& operator<<(std::ostream& os, DataType t) { return os << detail::text_type_name(t); }
inline std::ostream& operator<<(std::ostream& os, AttributeType t) { return os << attribute_type_name(t); }
inline std::ostream& operator<<(std::ostream& os, const Dim& v) { detail::Printer(os).dim(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Shape& v) { detail::Printer(os).shape(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Type& v) { detail::Printer(os).type(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const ValueInfo& v) { detail::Printer(os).value_info(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Tensor& v) { detail::Printer(os).tensor(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const SparseTensor& v) { detail::Printer(os).sparse(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Attribute& v) { detail::Printer(os).attribute(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Node& v) { detail::Printer(os).node(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Graph& v) { detail::Printer(os).graph(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Function& v) { detail::Printer(os).function(v); return os; }
inline std::ostream& operator<<(std::ostream& os, const Model& v) { detail::Printer(os).model(v); return os; }

/// The printed form of any ir value (what operator<< writes).
template <class T>
  requires requires(std::ostream& os, const T& v) { os << v; }
[[nodiscard]] std::string to_string(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

}  // namespace oxir
