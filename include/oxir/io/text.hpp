#pragma once
// ONNX's textual syntax (onnx/docs/Syntax.md): parse_text_model, parse_text_graph and
// parse_text_function read it; to_text writes it so that it reads back equal.
//
//   <ir_version: 8, opset_import: ["" : 17]>
//   agraph (float[N, 128] X, float[128, 10] W) => (float[N, 10] C) {
//     T = MatMul (X, W)
//     C = Softmax <axis = -1> (T)
//   }
//
// The grammar is the one onnx documents, everything in it included: quoted names, node labels
// `[name]`, overloads `Op:overload`, attribute references `@name`, typed attribute lists
// `<a: ints = []>`, `inf`/`nan`, `opaque(...)` types, external data `["location": "w.bin"]`,
// functions with attribute defaults and value_info. What oxir does beyond it is listed in
// docs/io.md ("Textual syntax"): chiefly, tensor values are checked against the dims and the
// element type, 4-bit and 2-bit tensors take one literal per element, and 16/8/4-bit floating
// point tensors take either the integer encoding (as onnx does) or a floating-point literal.

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../core/data_type.hpp"
#include "../core/error.hpp"
#include "../core/float_types.hpp"
#include "../core/packing.hpp"
#include "../ir/model.hpp"
#include "model_file.hpp"

namespace oxir {

/// Options of to_text.
struct TextOptions {
  /// What the syntax has no place for but does not change what a model computes (doc strings,
  /// metadata_props below the model, denotations, quantization annotations, device
  /// configurations, fields unknown to oxir) is left out instead of making to_text throw.
  bool lossy = false;
};

namespace detail::text {

/// Nesting (graphs in attributes, types in types, ...) beyond which the text is refused.
inline constexpr int kMaxTextDepth = 256;

inline bool is_id_start(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_id_char(char c) noexcept { return is_id_start(c) || (c >= '0' && c <= '9'); }
inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// The element type a lower-case type name stands for (`float`, `int64`, `float8e4m3fn`, ...).
inline std::optional<DataType> prim_type(std::string_view id) {
  if (id.empty() || id == "undefined") return std::nullopt;
  for (char c : id)
    if (c >= 'A' && c <= 'Z') return std::nullopt;
  auto t = data_type_from_name(id);
  if (!t || !is_known(*t) || *t == DataType::UNDEFINED) return std::nullopt;
  return t;
}

inline bool is_type_keyword(std::string_view id) {
  return prim_type(id) || id == "seq" || id == "map" || id == "optional" || id == "sparse_tensor" || id == "opaque";
}

inline std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return r;
}

inline bool is_float_word(std::string_view id) {
  const auto l = lower(id);
  return l == "inf" || l == "infinity" || l == "nan";
}

/// AttributeProto type names of the `name: type = value` annotation.
inline std::optional<AttributeType> attribute_type_from_text(std::string_view id) {
  static constexpr std::pair<std::string_view, AttributeType> names[] = {
      {"float", AttributeType::FLOAT},         {"int", AttributeType::INT},
      {"string", AttributeType::STRING},       {"tensor", AttributeType::TENSOR},
      {"graph", AttributeType::GRAPH},         {"sparse_tensor", AttributeType::SPARSE_TENSOR},
      {"type_proto", AttributeType::TYPE_PROTO}, {"floats", AttributeType::FLOATS},
      {"ints", AttributeType::INTS},           {"strings", AttributeType::STRINGS},
      {"tensors", AttributeType::TENSORS},     {"graphs", AttributeType::GRAPHS},
      {"sparse_tensors", AttributeType::SPARSE_TENSORS}, {"type_protos", AttributeType::TYPE_PROTOS}};
  for (const auto& [n, t] : names)
    if (n == id) return t;
  return std::nullopt;
}

inline std::string_view attribute_type_text(AttributeType t) {
  switch (t) {
    case AttributeType::FLOAT: return "float";
    case AttributeType::INT: return "int";
    case AttributeType::STRING: return "string";
    case AttributeType::TENSOR: return "tensor";
    case AttributeType::GRAPH: return "graph";
    case AttributeType::SPARSE_TENSOR: return "sparse_tensor";
    case AttributeType::TYPE_PROTO: return "type_proto";
    case AttributeType::FLOATS: return "floats";
    case AttributeType::INTS: return "ints";
    case AttributeType::STRINGS: return "strings";
    case AttributeType::TENSORS: return "tensors";
    case AttributeType::GRAPHS: return "graphs";
    case AttributeType::SPARSE_TENSORS: return "sparse_tensors";
    case AttributeType::TYPE_PROTOS: return "type_protos";
    default: return {};
  }
}

inline AttributeType list_of(AttributeType single) {
  switch (single) {
    case AttributeType::FLOAT: return AttributeType::FLOATS;
    case AttributeType::INT: return AttributeType::INTS;
    case AttributeType::STRING: return AttributeType::STRINGS;
    case AttributeType::TENSOR: return AttributeType::TENSORS;
    case AttributeType::GRAPH: return AttributeType::GRAPHS;
    case AttributeType::SPARSE_TENSOR: return AttributeType::SPARSE_TENSORS;
    case AttributeType::TYPE_PROTO: return AttributeType::TYPE_PROTOS;
    default: return AttributeType::UNDEFINED;
  }
}

inline AttributeType element_of(AttributeType list) {
  switch (list) {
    case AttributeType::FLOATS: return AttributeType::FLOAT;
    case AttributeType::INTS: return AttributeType::INT;
    case AttributeType::STRINGS: return AttributeType::STRING;
    case AttributeType::TENSORS: return AttributeType::TENSOR;
    case AttributeType::GRAPHS: return AttributeType::GRAPH;
    case AttributeType::SPARSE_TENSORS: return AttributeType::SPARSE_TENSOR;
    case AttributeType::TYPE_PROTOS: return AttributeType::TYPE_PROTO;
    default: return AttributeType::UNDEFINED;
  }
}

/// The field path of what is being read or written (for errors) and the nesting bound, shared
/// by the reader and the writer; `D::fail` reports the overflow in D's way.
template <class D>
class PathTracker {
 protected:
  struct PathGuard {
    PathTracker* t;
    std::size_t size;
    PathGuard(PathTracker* tracker, std::size_t n) : t(tracker), size(n) {}
    PathGuard(const PathGuard&) = delete;
    PathGuard& operator=(const PathGuard&) = delete;
    ~PathGuard() {
      t->path_.resize(size);
      --t->depth_;
    }
  };
  /// Appends `.segment` (or `[i]`) to the path for the guard's lifetime, counting the nesting.
  [[nodiscard]] PathGuard at(std::string_view segment) {
    const auto size = path_.size();
    if (!path_.empty() && !segment.empty() && segment.front() != '[') path_ += '.';
    path_ += segment;
    if (++depth_ > kMaxTextDepth) {
      --depth_;
      static_cast<D*>(this)->fail("nested more than " + std::to_string(kMaxTextDepth) + " deep");
    }
    return PathGuard{this, size};
  }

  std::string path_;
  int depth_ = 0;
};

// ---- reading ---------------------------------------------------------------------------------

class Parser : public PathTracker<Parser> {
  friend class PathTracker<Parser>;

 public:
  Parser(std::string_view text, std::string root) : s_(text) { path_ = std::move(root); }

  Model model() {
    Model m;
    header("model", [&](const std::string& key) {
      if (key == "ir_version") {
        m.ir_version = int64_literal("the IR version");
        m.presence.set(1);
      } else if (key == "opset_import") {
        auto g = at("opset_import");
        m.opset_imports = opset_list();
      } else if (key == "producer_name") {
        m.producer_name = string_literal("the producer name");
        m.presence.set(2);
      } else if (key == "producer_version") {
        m.producer_version = string_literal("the producer version");
        m.presence.set(3);
      } else if (key == "domain") {
        m.domain = string_literal("the model domain");
        m.presence.set(4);
      } else if (key == "model_version") {
        m.model_version = int64_literal("the model version");
        m.presence.set(5);
      } else if (key == "doc_string") {
        m.doc_string = string_literal("the doc string");
        m.presence.set(6);
      } else if (key == "metadata_props") {
        auto g = at("metadata_props");
        m.metadata_props = string_pairs();
      } else {
        fail("unknown model field '" + key +
             "' (ir_version, opset_import, producer_name, producer_version, domain, model_version, doc_string, "
             "metadata_props)");
      }
    });
    {
      auto g = at("graph");
      m.graph = graph();
      m.presence.set(7);
    }
    while (!at_end()) {
      auto g = at("functions[" + std::to_string(m.functions.size()) + "]");
      m.functions.push_back(function());
    }
    return m;
  }

  Graph graph() {
    auto name = quotable("a graph name");
    return graph_named(std::move(name));
  }

  Function function() {
    Function f;
    header("function", [&](const std::string& key) {
      if (key == "domain") {
        f.domain = string_literal("the function domain");
        f.presence.set(10);
      } else if (key == "opset_import") {
        auto g = at("opset_import");
        f.opset_imports = opset_list();
      } else if (key == "doc_string") {
        f.doc_string = string_literal("the doc string");
        f.presence.set(8);
      } else if (key == "overload") {
        f.overload = string_literal("the overload");
        f.presence.set(13);
      } else {
        fail("unknown function field '" + key + "' (domain, opset_import, doc_string, overload)");
      }
    });
    f.name = quotable("a function name");
    f.presence.set(1);
    items('<', '>', [&] {
      auto name = attribute_name();
      if (peek() == ':' || peek() == '=') {
        auto g = at("attribute_proto[" + std::to_string(f.attribute_protos.size()) + "]");
        f.attribute_protos.push_back(attribute_named(std::move(name)));
      } else {
        f.attributes.push_back(std::move(name));
      }
    });
    function_parameters(f.inputs, f.value_info, "input");
    expect_arrow();
    function_parameters(f.outputs, f.value_info, "output");
    items('<', '>', [&] {
      auto g = at("value_info[" + std::to_string(f.value_info.size()) + "]");
      f.value_info.push_back(value_info());
    });
    f.nodes = node_list();
    return f;
  }

  /// Fails unless only white space and comments are left.
  void finish(const char* what) {
    if (!at_end()) fail(std::string("unexpected text after ") + what);
  }

 private:
  // ---- lexing ----
  void skip_space() {
    for (;;) {
      while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
      if (pos_ >= s_.size() || s_[pos_] != '#') return;
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    }
  }
  bool at_end() {
    skip_space();
    return pos_ >= s_.size();
  }
  char peek() {
    skip_space();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  void expect_arrow() {
    if (peek() == '=' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '>') {
      pos_ += 2;
      return;
    }
    fail("expected '=>'");
  }
  std::string_view peek_identifier() {
    skip_space();
    std::size_t e = pos_;
    if (e < s_.size() && is_id_start(s_[e]))
      while (e < s_.size() && is_id_char(s_[e])) ++e;
    return s_.substr(pos_, e - pos_);
  }
  std::string_view identifier(const char* what) {
    auto id = peek_identifier();
    if (id.empty()) fail(std::string("expected ") + what);
    pos_ += id.size();
    return id;
  }
  bool next_is_type() { return is_type_keyword(peek_identifier()); }

  /// A string literal: a backslash takes the next character literally (as onnx's parser does).
  std::string string_literal(const char* what) {
    if (peek() != '"') fail(std::string("expected ") + what + " (a quoted string)");
    const std::size_t start = pos_;
    ++pos_;
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) {
        pos_ = start;
        fail("string not terminated");
      }
      char c = s_[pos_++];
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ >= s_.size()) {
          pos_ = start;
          fail("string not terminated");
        }
        c = s_[pos_++];
      }
      out += c;
    }
    return out;
  }
  /// An identifier or a quoted string (which may be empty), or nothing.
  std::optional<std::string> optional_quotable() {
    const char c = peek();
    if (c == '"') return string_literal("a name");
    if (is_id_start(c)) return std::string(identifier("a name"));
    return std::nullopt;
  }
  std::string quotable(const char* what) {
    auto v = optional_quotable();
    if (!v) fail(std::string("expected ") + what);
    return std::move(*v);
  }

  struct Number {
    std::string_view text;
    bool is_float = false;
  };
  /// A numeric literal: -?digits(.digits*)?([eE][+-]?digits)? or -?(inf|infinity|nan).
  std::optional<Number> optional_number() {
    skip_space();
    const std::size_t start = pos_;
    std::size_t p = pos_;
    if (p < s_.size() && s_[p] == '-') ++p;
    if (p < s_.size() && is_id_start(s_[p])) {
      std::size_t e = p;
      while (e < s_.size() && is_id_char(s_[e])) ++e;
      if (!is_float_word(s_.substr(p, e - p))) return std::nullopt;
      pos_ = e;
      return Number{s_.substr(start, e - start), true};
    }
    if (p >= s_.size() || !is_digit(s_[p])) return std::nullopt;
    bool is_float = false;
    while (p < s_.size() && is_digit(s_[p])) ++p;
    if (p < s_.size() && s_[p] == '.') {
      is_float = true;
      ++p;
      while (p < s_.size() && is_digit(s_[p])) ++p;
    }
    if (p < s_.size() && (s_[p] == 'e' || s_[p] == 'E')) {
      is_float = true;
      ++p;
      if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
      if (p >= s_.size() || !is_digit(s_[p])) {
        pos_ = p;
        fail("exponent without digits");
      }
      while (p < s_.size() && is_digit(s_[p])) ++p;
    }
    if (p < s_.size() && (is_id_char(s_[p]) || s_[p] == '.')) {
      pos_ = p;
      fail("malformed number");
    }
    pos_ = p;
    return Number{s_.substr(start, p - start), is_float};
  }
  Number number(const char* what) {
    auto n = optional_number();
    if (!n) fail(std::string("expected ") + what);
    return *n;
  }

  template <class I>
  I to_integer(const Number& n, const char* what) {
    if (n.is_float) fail(std::string("expected ") + what + " (an integer), found '" + std::string(n.text) + "'");
    I v{};
    auto text = n.text;
    if constexpr (std::is_unsigned_v<I>)
      if (!text.empty() && text.front() == '-') fail("'" + std::string(text) + "' is negative: " + what + " cannot be");
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
      fail("'" + std::string(text) + "' is out of range for " + what);
    return v;
  }
  template <class F>
  F to_floating(const Number& n, const char* what) {
    auto text = n.text;
    const bool negative = !text.empty() && text.front() == '-';
    const auto body = negative ? text.substr(1) : text;
    if (!body.empty() && is_id_start(body.front())) {
      const auto w = lower(body);
      F v = w == "nan" ? std::numeric_limits<F>::quiet_NaN() : std::numeric_limits<F>::infinity();
      return negative ? -v : v;
    }
    F v{};
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ptr != text.data() + text.size() || (r.ec != std::errc{} && r.ec != std::errc::result_out_of_range))
      fail("'" + std::string(text) + "' is not a number");
    if (r.ec == std::errc::result_out_of_range) {
      // Underflow rounds to zero or a subnormal (as the conversion is defined); overflow is refused.
      const long double wide = std::strtold(std::string(text).c_str(), nullptr);
      if (std::fabs(wide) >= 1) fail("'" + std::string(text) + "' is out of range for " + what);
      v = static_cast<F>(wide);
    }
    return v;
  }
  std::int64_t int64_literal(const char* what) { return to_integer<std::int64_t>(number(what), what); }

  /// `open item, item, ... close` when the text is at `open` (then true), else nothing (false).
  /// The list may be empty.
  template <class F>
  bool items(char open, char close, F&& item) {
    if (!accept(open)) return false;
    if (accept(close)) return true;
    do {
      item();
    } while (accept(','));
    expect(close);
    return true;
  }
  /// The `<key: value, ...>` header of a model or function, if there is one: each key once,
  /// `field(key)` reads its value (and fails on a key it does not know).
  template <class F>
  void header(const char* of, F&& field) {
    std::vector<std::string> seen;
    items('<', '>', [&] {
      const auto key = std::string(identifier((std::string("a ") + of + " field name").c_str()));
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) fail("'" + key + "' given twice");
      seen.push_back(key);
      expect(':');
      field(key);
    });
  }

  // ---- errors ----
  [[noreturn]] void fail(const std::string& message) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string found;
    if (pos_ >= s_.size()) {
      found = "the end of the text";
    } else {
      std::size_t e = pos_;
      while (e < s_.size() && e - pos_ < 20 && s_[e] != '\n') ++e;
      found = "'" + std::string(s_.substr(pos_, e - pos_)) + "'";
    }
    throw Error(path_, "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message +
                           " (at " + found + ")");
  }

  // ---- small lists ----
  std::vector<OperatorSetId> opset_list() {
    std::vector<OperatorSetId> out;
    if (!items('[', ']', [&] {
          OperatorSetId o;
          o.domain = string_literal("an operator set domain");
          expect(':');
          o.version = int64_literal("an operator set version");
          o.presence.set(1);
          o.presence.set(2);
          out.push_back(std::move(o));
        }))
      fail("expected '['");
    return out;
  }
  std::vector<StringStringEntry> string_pairs() {
    std::vector<StringStringEntry> out;
    if (!items('[', ']', [&] {
          StringStringEntry e;
          e.key = string_literal("a key");
          expect(':');
          e.value = string_literal("a value");
          e.presence.set(1);
          e.presence.set(2);
          out.push_back(std::move(e));
        }))
      fail("expected '['");
    return out;
  }
  /// Comma-separated names, each of which may be left out (an omitted optional input or output):
  /// `a, , b` and `a, "", b` both have an empty second name; a trailing comma adds nothing.
  std::vector<std::string> name_list() {
    std::vector<std::string> out;
    for (;;) {
      auto name = optional_quotable();
      if (!accept(',')) {
        if (name) out.push_back(std::move(*name));
        return out;
      }
      out.push_back(name ? std::move(*name) : std::string());
    }
  }

  // ---- types ----
  Shape dims() {
    Shape shape;
    do {
      if (accept('?')) {
        shape.dims.emplace_back();
      } else if (auto name = optional_quotable()) {
        shape.dims.emplace_back(std::move(*name));
      } else {
        shape.dims.emplace_back(to_integer<std::int64_t>(number("a dimension"), "a dimension"));
      }
    } while (accept(','));
    return shape;
  }
  std::optional<Shape> optional_shape() {
    if (!accept('[')) return Shape{};  // no brackets: a scalar
    if (accept(']')) return std::nullopt;  // `[]`: rank unknown
    auto s = dims();
    expect(']');
    return s;
  }
  DataType element_type(const char* what) {
    const auto id = identifier(what);
    auto t = prim_type(id);
    if (!t) {
      pos_ -= id.size();
      fail("'" + std::string(id) + "' is not an element type");
    }
    return *t;
  }
  Type type() {
    auto g = at("");
    const auto id = identifier("a type");
    if (auto t = prim_type(id)) {
      TensorType tt;
      tt.elem_type = *t;
      tt.presence.set(1);
      tt.shape = optional_shape();
      return tt;
    }
    if (id == "seq" || id == "optional") {
      expect('(');
      auto inner = type();
      expect(')');
      if (id == "seq") return Type::sequence(std::move(inner));
      return Type::optional(std::move(inner));
    }
    if (id == "map") {
      expect('(');
      const auto key = element_type("a map key type");
      expect(',');
      auto value = type();
      expect(')');
      MapType mt;
      mt.key_type = key;
      mt.presence.set(1);
      mt.value_type = Box<Type>(std::move(value));
      return mt;
    }
    if (id == "sparse_tensor") {
      expect('(');
      SparseTensorType st;
      st.elem_type = element_type("the element type of a sparse tensor");
      st.presence.set(1);
      st.shape = optional_shape();
      expect(')');
      return st;
    }
    if (id == "opaque") {
      OpaqueType ot;
      expect('(');
      if (!accept(')')) {
        auto first = qualified_or_quoted("an opaque type's name");
        if (accept(',')) {
          ot.domain = std::move(first);
          ot.name = qualified_or_quoted("an opaque type's name");
          ot.presence.set(1);
        } else {
          ot.name = std::move(first);
        }
        ot.presence.set(2);
        expect(')');
      }
      return ot;
    }
    pos_ -= id.size();
    fail("'" + std::string(id) + "' is not a type");
  }
  std::string qualified_or_quoted(const char* what) {
    if (peek() == '"') return string_literal(what);
    std::string s(identifier(what));
    while (accept('.')) {
      s += '.';
      s += identifier(what);
    }
    return s;
  }
  ValueInfo value_info() {
    ValueInfo v;
    if (next_is_type()) v.type = type();
    v.name = quotable("a value name");
    v.presence.set(1);
    return v;
  }

  // ---- tensors ----
  /// The values (`{...}`) or external data (`[...]`) of a tensor of type `t`.
  Tensor tensor_data(const Type& t, std::string name) {
    const auto* tt = t.as_tensor();
    if (!tt) fail("a tensor constant needs a tensor type");
    if (!tt->shape) fail("a tensor constant needs its dims (`float[]` leaves them open)");
    Tensor out;
    out.name = std::move(name);
    out.presence.set(8);
    out.data_type = tt->elem_type;
    out.presence.set(2);
    out.encoding = TensorEncoding::typed;
    for (const auto& d : tt->shape->dims) {
      if (!d.is_value()) fail("a tensor constant's dims must be numbers");
      if (d.dim_value() < 0) fail("a tensor constant's dims must not be negative");
      out.dims.push_back(d.dim_value());
    }
    if (accept('[')) {
      out.data_location = DataLocation::EXTERNAL;
      out.presence.set(14);
      pos_ -= 1;
      auto g = at("external_data");
      out.external_data = string_pairs();
      return out;
    }
    if (!accept('{')) fail("expected '{' and the values, or '[' and external data");
    const auto count = out.element_count();
    if (!count) fail("the tensor's dims overflow");
    const std::uint64_t want = is_complex(out.data_type) ? 2 * *count : *count;
    if (is_complex(out.data_type) && *count > UINT64_MAX / 2) fail("the tensor's dims overflow");
    auto g = at("values");
    std::uint64_t n = 0;
    std::vector<std::byte> bytes;
    std::vector<std::uint8_t> small;  // sub-byte elements, one per entry
    if (!accept('}')) {
      do {
        if (n == want)
          fail("more values than the dims [" + dims_text(out.dims) + "] hold (" + std::to_string(want) + ")");
        element(out, bytes, small);
        ++n;
      } while (accept(','));
      expect('}');
    }
    if (n != want)
      fail(std::to_string(n) + " values for dims [" + dims_text(out.dims) + "], which hold " + std::to_string(want));
    if (is_sub_byte(out.data_type)) {
      std::vector<std::byte> packed(packed_size(small.size(), bit_width(out.data_type)));
      pack_bits(small, bit_width(out.data_type), packed);
      bytes = std::move(packed);
    }
    if (out.data_type != DataType::STRING) out.data = Buffer::owned(std::move(bytes));
    return out;
  }
  static std::string dims_text(const std::vector<std::int64_t>& d) {
    std::string s;
    for (std::size_t i = 0; i < d.size(); ++i) {
      s += i ? "," : "";
      s += std::to_string(d[i]);
    }
    return s;
  }
  template <class T>
  static void append(std::vector<std::byte>& bytes, T v) {
    const auto at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
  }
  template <class I>
  I ranged(const Number& n, const char* type_name) {
    const auto v = to_integer<std::int64_t>(n, type_name);
    if (v < static_cast<std::int64_t>(std::numeric_limits<I>::min()) ||
        (v > 0 && static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<I>::max())))
      fail("'" + std::string(n.text) + "' is out of range for " + type_name);
    return static_cast<I>(v);
  }
  /// A 16/8/4-bit floating point element: an integer is its encoding (as in onnx's int32_data),
  /// a floating-point literal its value (rounded to nearest even; out of range is refused).
  template <class F>
  typename F::bits_type small_float(const Number& n, const char* type_name) {
    using B = typename F::bits_type;
    if (!n.is_float) {
      const auto v = to_integer<std::int64_t>(n, type_name);
      const auto max = bit_width(data_type_of<F>) >= 16 ? 0xFFFF : (1 << bit_width(data_type_of<F>)) - 1;
      if (v < 0 || v > max)
        fail("'" + std::string(n.text) + "' is not an encoding of " + type_name + " (0 to " + std::to_string(max) +
             "; write a value with a decimal point)");
      return static_cast<B>(v);
    }
    const double x = to_floating<double>(n, type_name);
    const F f = F::from_double(x, false);
    if (std::isfinite(x) && !std::isfinite(static_cast<double>(f)))
      fail("'" + std::string(n.text) + "' is out of range for " + type_name);
    return f.bits();
  }
  void element(Tensor& t, std::vector<std::byte>& bytes, std::vector<std::uint8_t>& small) {
    const auto name = data_type_name(t.data_type);
    const std::string lname = lower(name);
    const char* tn = lname.c_str();
    if (t.data_type == DataType::STRING) {
      t.strings.push_back(string_literal("a string element"));
      return;
    }
    const auto n = number("a tensor element");
    switch (t.data_type) {
      case DataType::FLOAT:
      case DataType::COMPLEX64: return append(bytes, to_floating<float>(n, tn));
      case DataType::DOUBLE:
      case DataType::COMPLEX128: return append(bytes, to_floating<double>(n, tn));
      case DataType::INT8: return append(bytes, ranged<std::int8_t>(n, tn));
      case DataType::UINT8: return append(bytes, ranged<std::uint8_t>(n, tn));
      case DataType::INT16: return append(bytes, ranged<std::int16_t>(n, tn));
      case DataType::UINT16: return append(bytes, ranged<std::uint16_t>(n, tn));
      case DataType::INT32: return append(bytes, ranged<std::int32_t>(n, tn));
      case DataType::UINT32: return append(bytes, ranged<std::uint32_t>(n, tn));
      case DataType::INT64: return append(bytes, to_integer<std::int64_t>(n, tn));
      case DataType::UINT64: return append(bytes, to_integer<std::uint64_t>(n, tn));
      case DataType::BOOL: {
        const auto v = to_integer<std::int64_t>(n, tn);
        if (v != 0 && v != 1) fail("'" + std::string(n.text) + "' is not a bool (0 or 1)");
        return append(bytes, static_cast<std::uint8_t>(v));
      }
      case DataType::FLOAT16: return append(bytes, small_float<float16>(n, tn));
      case DataType::BFLOAT16: return append(bytes, small_float<bfloat16>(n, tn));
      case DataType::FLOAT8E4M3FN: return append(bytes, small_float<float8e4m3fn>(n, tn));
      case DataType::FLOAT8E4M3FNUZ: return append(bytes, small_float<float8e4m3fnuz>(n, tn));
      case DataType::FLOAT8E5M2: return append(bytes, small_float<float8e5m2>(n, tn));
      case DataType::FLOAT8E5M2FNUZ: return append(bytes, small_float<float8e5m2fnuz>(n, tn));
      case DataType::FLOAT8E8M0: {
        if (!n.is_float) return append(bytes, ranged<std::uint8_t>(n, tn));
        const double x = to_floating<double>(n, tn);
        const auto f = float8e8m0::from_double(x, false, float8e8m0::RoundMode::nearest);
        if (!std::isnan(x) && f.bits() == 0xFF) fail("'" + std::string(n.text) + "' is out of range for " + tn);
        return append(bytes, f.bits());
      }
      case DataType::FLOAT4E2M1: small.push_back(small_float<float4e2m1>(n, tn)); return;
      case DataType::INT4: small.push_back(static_cast<std::uint8_t>(sub_int(n, -8, 7, tn) & 0xF)); return;
      case DataType::UINT4: small.push_back(static_cast<std::uint8_t>(sub_int(n, 0, 15, tn))); return;
      case DataType::INT2: small.push_back(static_cast<std::uint8_t>(sub_int(n, -2, 1, tn) & 0x3)); return;
      case DataType::UINT2: small.push_back(static_cast<std::uint8_t>(sub_int(n, 0, 3, tn))); return;
      default: fail("tensors of element type " + std::string(name) + " cannot be written as text");
    }
  }
  int sub_int(const Number& n, int lo, int hi, const char* tn) {
    const auto v = to_integer<std::int64_t>(n, tn);
    if (v < lo || v > hi)
      fail("'" + std::string(n.text) + "' is out of range for " + tn + " (" + std::to_string(lo) + " to " +
           std::to_string(hi) + ")");
    return static_cast<int>(v);
  }

  // ---- graphs ----
  Graph graph_named(std::string name) {
    Graph g;
    g.name = std::move(name);
    g.presence.set(2);
    // An input or an entry of the `<...>` list with `= values` is (also) an initializer.
    auto with_values = [&](ValueInfo& v) {
      if (!accept('=')) return false;
      auto ig = at("initializer[" + std::to_string(g.initializers.size()) + "]");
      if (!v.type) fail("a value given values needs a tensor type");
      g.initializers.push_back(tensor_data(*v.type, v.name));
      return true;
    };
    if (!items('(', ')', [&] {
          auto guard = at("input[" + std::to_string(g.inputs.size()) + "]");
          auto v = value_info();
          with_values(v);
          g.inputs.push_back(std::move(v));
        }))
      fail("expected '(' and the graph's inputs");
    expect_arrow();
    if (!items('(', ')', [&] {
          auto guard = at("output[" + std::to_string(g.outputs.size()) + "]");
          g.outputs.push_back(value_info());
        }))
      fail("expected '(' and the graph's outputs");
    items('<', '>', [&] {
      auto v = value_info();
      if (!with_values(v)) g.value_info.push_back(std::move(v));
    });
    g.nodes = node_list();
    return g;
  }
  std::vector<Node> node_list() {
    std::vector<Node> nodes;
    expect('{');
    while (!accept('}')) {
      if (at_end()) fail("expected '}' closing the node list");
      auto g = at("node[" + std::to_string(nodes.size()) + "]");
      nodes.push_back(node());
    }
    return nodes;
  }
  Node node() {
    Node n;
    if (accept('[')) {
      n.name = optional_quotable().value_or(std::string());
      n.presence.set(3);
      expect(']');
    }
    n.outputs = name_list();
    if (peek() != '=' || (pos_ + 1 < s_.size() && s_[pos_ + 1] == '>')) fail("expected '=' before the operator");
    ++pos_;
    std::string op(identifier("an operator"));
    std::string domain;
    while (accept('.')) {
      if (!domain.empty()) domain += '.';
      domain += op;
      op = std::string(identifier("an operator name after '.'"));
    }
    n.op_type = std::move(op);
    n.domain = std::move(domain);
    n.presence.set(4);
    n.presence.set(7);
    if (accept(':')) {
      n.overload = std::string(identifier("an overload name"));
      n.presence.set(8);
    }
    const bool before = peek() == '<';
    if (before) n.attributes = attribute_list();
    expect('(');
    {
      auto g = at("input");
      n.inputs = name_list();
    }
    expect(')');
    if (!before && peek() == '<') n.attributes = attribute_list();
    return n;
  }
  std::vector<Attribute> attribute_list() {
    std::vector<Attribute> out;
    items('<', '>', [&] {
      auto g = at("attribute[" + std::to_string(out.size()) + "]");
      out.push_back(attribute_named(attribute_name()));
    });
    return out;
  }


  // ---- attributes ----
  /// An identifier, or (oxir's extension) a quoted string for a name that is not one.
  std::string attribute_name() {
    if (peek() == '"') {
      auto n = string_literal("an attribute name");
      if (n.empty()) fail("an attribute name cannot be empty");
      return n;
    }
    return std::string(identifier("an attribute name"));
  }
  struct Single {
    AttributeType kind = AttributeType::UNDEFINED;
    AttributeValue value;
    std::string ref;
  };
  Attribute attribute_named(std::string name) {
    Attribute a;
    a.name = std::move(name);
    a.presence.set(1);
    AttributeType declared = AttributeType::UNDEFINED;
    if (accept(':')) {
      const auto id = identifier("an attribute type");
      auto t = attribute_type_from_text(id);
      if (!t) {
        pos_ -= id.size();
        fail("'" + std::string(id) + "' is not an attribute type (int, float, string, tensor, graph, type_proto, "
             "sparse_tensor, or their plurals)");
      }
      declared = *t;
    }
    if (peek() != '=' || (pos_ + 1 < s_.size() && s_[pos_ + 1] == '>')) fail("expected '=' and the attribute's value");
    ++pos_;
    if (accept('[')) {
      const auto element = element_of(declared);
      if (declared != AttributeType::UNDEFINED && element == AttributeType::UNDEFINED)
        fail("a list given for an attribute declared '" + std::string(attribute_type_text(declared)) + "'");
      AttributeType kind = declared;
      std::vector<Single> items;
      if (!accept(']')) {
        do {
          auto g = at("[" + std::to_string(items.size()) + "]");
          auto s = single(element);
          if (!s.ref.empty()) fail("an attribute reference cannot be a list element");
          items.push_back(std::move(s));
        } while (accept(','));
        expect(']');
      } else if (declared == AttributeType::UNDEFINED) {
        fail("an empty list needs its type: `name: ints = []`");
      }
      if (kind == AttributeType::UNDEFINED) {
        // Undeclared: the elements decide; integers among floats are floats.
        AttributeType e = items.front().kind;
        for (const auto& s : items)
          if (s.kind != e) {
            if ((s.kind == AttributeType::FLOAT && e == AttributeType::INT) ||
                (s.kind == AttributeType::INT && e == AttributeType::FLOAT))
              e = AttributeType::FLOAT;
            else
              fail("a list mixes " + std::string(attribute_type_text(e)) + " and " +
                   std::string(attribute_type_text(s.kind)) + " values");
          }
        kind = list_of(e);
      }
      a.type = kind;
      a.presence.set(20);
      a.value = list_value(kind, items);
      return a;
    }
    const bool declared_list = element_of(declared) != AttributeType::UNDEFINED;
    auto s = single(declared_list ? AttributeType::UNDEFINED : declared);
    if (!s.ref.empty()) {
      a.ref_attr_name = std::move(s.ref);
      a.presence.set(21);
      a.type = declared;
      if (declared != AttributeType::UNDEFINED) a.presence.set(20);
      return a;
    }
    if (declared_list)
      fail("a single value given for an attribute declared '" + std::string(attribute_type_text(declared)) +
           "' (a list is written [...])");
    a.type = s.kind;
    a.presence.set(20);
    a.value = std::move(s.value);
    return a;
  }
  AttributeValue list_value(AttributeType kind, std::vector<Single>& items) {
    switch (kind) {
      case AttributeType::FLOATS: {
        std::vector<float> v;
        for (auto& s : items)
          v.push_back(s.kind == AttributeType::INT ? static_cast<float>(std::get<std::int64_t>(s.value))
                                                   : std::get<float>(s.value));
        return v;
      }
      case AttributeType::INTS: {
        std::vector<std::int64_t> v;
        for (auto& s : items) v.push_back(std::get<std::int64_t>(s.value));
        return v;
      }
      case AttributeType::STRINGS: {
        std::vector<std::string> v;
        for (auto& s : items) v.push_back(std::move(std::get<std::string>(s.value)));
        return v;
      }
      case AttributeType::TENSORS: {
        std::vector<Tensor> v;
        for (auto& s : items) v.push_back(std::move(*std::get<Box<Tensor>>(s.value)));
        return v;
      }
      case AttributeType::GRAPHS: {
        std::vector<Graph> v;
        for (auto& s : items) v.push_back(std::move(*std::get<Box<Graph>>(s.value)));
        return v;
      }
      case AttributeType::TYPE_PROTOS: {
        std::vector<Type> v;
        for (auto& s : items) v.push_back(std::move(*std::get<Box<Type>>(s.value)));
        return v;
      }
      case AttributeType::SPARSE_TENSORS: {
        if (!items.empty()) fail("sparse tensors cannot be written as text");
        return std::vector<SparseTensor>{};
      }
      default: fail("not a list attribute type");
    }
  }
  /// One attribute value; `expected` (a single kind, or UNDEFINED) is what a declaration asks for.
  Single single(AttributeType expected) {
    Single s;
    const char c = peek();
    if (c == '@') {
      ++pos_;
      s.ref = quotable("the name of the referenced attribute");
      if (s.ref.empty()) fail("an attribute reference needs a name");
      return s;
    }
    if (is_id_start(c) && next_is_type()) {
      auto t = type();
      const char d = peek();
      if (d == '{' || d == '=' || d == '"' || is_id_start(d)) {
        auto g = at("t");
        std::string name = optional_quotable().value_or(std::string());
        (void)accept('=');
        s.kind = AttributeType::TENSOR;
        s.value = Box<Tensor>(tensor_data(t, std::move(name)));
      } else {
        s.kind = AttributeType::TYPE_PROTO;
        s.value = Box<Type>(std::move(t));
      }
    } else if (is_id_start(c) && !is_float_word(peek_identifier())) {
      auto g = at("g");
      auto name = std::string(identifier("a graph name"));
      s.kind = AttributeType::GRAPH;
      s.value = Box<Graph>(graph_named(std::move(name)));
    } else if (c == '"') {
      auto str = string_literal("a string");
      if (peek() == '(') {  // `"name" (inputs) => ...`: a graph whose name is not an identifier
        auto g = at("g");
        s.kind = AttributeType::GRAPH;
        s.value = Box<Graph>(graph_named(std::move(str)));
      } else {
        s.kind = AttributeType::STRING;
        s.value = std::move(str);
      }
    } else {
      const auto n = number("an attribute value");
      if (n.is_float) {
        s.kind = AttributeType::FLOAT;
        s.value = to_floating<float>(n, "a float attribute");
      } else if (expected == AttributeType::FLOAT) {
        s.kind = AttributeType::FLOAT;
        s.value = static_cast<float>(to_integer<std::int64_t>(n, "a float attribute"));
      } else {
        s.kind = AttributeType::INT;
        s.value = to_integer<std::int64_t>(n, "an int attribute");
      }
    }
    if (expected != AttributeType::UNDEFINED && s.kind != expected) {
      if (expected == AttributeType::FLOAT && s.kind == AttributeType::INT) {
        s.kind = AttributeType::FLOAT;
        s.value = static_cast<float>(std::get<std::int64_t>(s.value));
      } else {
        fail("a value of kind '" + std::string(attribute_type_text(s.kind)) + "' given for an attribute declared '" +
             std::string(attribute_type_text(expected)) + "'");
      }
    }
    return s;
  }

  // ---- functions ----
  void function_parameters(std::vector<std::string>& names, std::vector<ValueInfo>& infos, const char* what) {
    if (!items('(', ')', [&] {
          auto g = at(std::string(what) + "[" + std::to_string(names.size()) + "]");
          if (!next_is_type()) {
            names.push_back(quotable("a name"));
            return;
          }
          ValueInfo v;
          v.type = type();
          v.name = quotable("a name");
          v.presence.set(1);
          names.push_back(v.name);
          infos.push_back(std::move(v));
        }))
      fail(std::string("expected '(' and the function's ") + what + "s");
  }


  std::string_view s_;
  std::size_t pos_ = 0;
};

// ---- writing ---------------------------------------------------------------------------------

class Writer : public PathTracker<Writer> {
  friend class PathTracker<Writer>;

 public:
  explicit Writer(const TextOptions& o) : lossy_(o.lossy) {}

  std::string take() { return std::move(out_); }

  void model(const Model& m) {
    if (!m.training_info.empty()) {
      auto g = at("training_info");
      fail("training information has no textual syntax");
    }
    aux(!m.configuration.empty(), "configuration", "device configurations");
    aux(!m.unknown_fields.empty(), "", "fields unknown to oxir");
    std::vector<std::string> items;
    if (m.ir_version != 0 || m.presence.has(1)) items.push_back("ir_version: " + std::to_string(m.ir_version));
    if (!m.opset_imports.empty()) {
      auto g = at("opset_import");
      items.push_back("opset_import: " + opsets(m.opset_imports));
    }
    auto str_item = [&](const char* key, const std::string& v, int field) {
      if (!v.empty() || m.presence.has(field)) items.push_back(std::string(key) + ": " + quoted(v));
    };
    str_item("producer_name", m.producer_name, 2);
    str_item("producer_version", m.producer_version, 3);
    str_item("domain", m.domain, 4);
    if (m.model_version != 0 || m.presence.has(5)) items.push_back("model_version: " + std::to_string(m.model_version));
    str_item("doc_string", m.doc_string, 6);
    if (!m.metadata_props.empty()) {
      auto g = at("metadata_props");
      items.push_back("metadata_props: " + pairs(m.metadata_props));
    }
    header(items);
    {
      auto g = at("graph");
      graph(m.graph);
    }
    out_ += '\n';
    for (std::size_t i = 0; i < m.functions.size(); ++i) {
      auto g = at("functions[" + std::to_string(i) + "]");
      out_ += '\n';
      function(m.functions[i]);
      out_ += '\n';
    }
  }

  void graph(const Graph& g) {
    if (!g.sparse_initializers.empty()) {
      auto s = at("sparse_initializer");
      fail("sparse tensors have no textual syntax");
    }
    aux(!g.doc_string.empty(), "doc_string", "a graph's doc string");
    aux(!g.quantization_annotation.empty(), "quantization_annotation", "quantization annotations");
    aux(!g.metadata_props.empty(), "metadata_props", "a graph's metadata_props");
    aux(!g.unknown_fields.empty(), "", "fields unknown to oxir");
    // (An attribute's graph named by a quoted string is oxir's extension, see docs/io.md.)
    out_ += name(g.name);
    out_ += " (";
    each(g.inputs.size(), ", ", [&](std::size_t i) {
      auto s = at("input[" + std::to_string(i) + "]");
      value_info(g.inputs[i]);
    });
    out_ += ") => (";
    each(g.outputs.size(), ", ", [&](std::size_t i) {
      auto s = at("output[" + std::to_string(i) + "]");
      value_info(g.outputs[i]);
    });
    out_ += ')';
    const auto n_init = g.initializers.size();
    block(n_init + g.value_info.size(), [&](std::size_t i) {
      if (i >= n_init) {
        auto s = at("value_info[" + std::to_string(i - n_init) + "]");
        value_info(g.value_info[i - n_init]);
        return;
      }
      auto s = at("initializer[" + std::to_string(i) + "]");
      const auto& t = g.initializers[i];
      tensor_type_text(t);
      out_ += ' ';
      out_ += name(t.name);
      out_ += " = ";
      tensor_data(t);
    });
    nodes(g.nodes);
  }

  void function(const Function& f) {
    aux(!f.metadata_props.empty(), "metadata_props", "a function's metadata_props");
    aux(!f.unknown_fields.empty(), "", "fields unknown to oxir");
    std::vector<std::string> items;
    if (!f.domain.empty() || f.presence.has(10)) items.push_back("domain: " + quoted(f.domain));
    if (!f.opset_imports.empty()) {
      auto g = at("opset_import");
      items.push_back("opset_import: " + opsets(f.opset_imports));
    }
    if (!f.doc_string.empty() || f.presence.has(8)) items.push_back("doc_string: " + quoted(f.doc_string));
    if (!f.overload.empty() || f.presence.has(13)) items.push_back("overload: " + quoted(f.overload));
    header(items);
    out_ += name(f.name);
    const auto n_names = f.attributes.size();
    if (n_names + f.attribute_protos.size() != 0) {
      out_ += " <";
      each(n_names + f.attribute_protos.size(), ", ", [&](std::size_t i) {
        if (i >= n_names) {
          auto g = at("attribute_proto[" + std::to_string(i - n_names) + "]");
          attribute(f.attribute_protos[i - n_names]);
          return;
        }
        auto g = at("attribute[" + std::to_string(i) + "]");
        if (f.attributes[i].empty()) fail("an empty attribute name cannot be written as text");
        out_ += attribute_name(f.attributes[i]);
      });
      out_ += '>';
    }
    out_ += " (";
    each(f.inputs.size(), ", ", [&](std::size_t i) { out_ += name(f.inputs[i]); });
    out_ += ") => (";
    each(f.outputs.size(), ", ", [&](std::size_t i) { out_ += name(f.outputs[i]); });
    out_ += ')';
    block(f.value_info.size(), [&](std::size_t i) {
      auto g = at("value_info[" + std::to_string(i) + "]");
      value_info(f.value_info[i]);
    });
    nodes(f.nodes);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw Error(path_, message); }
  /// Something the syntax cannot hold that does not change what the model computes.
  void aux(bool present, std::string_view field, std::string_view what) {
    if (!present || lossy_) return;
    auto g = at(field);
    fail(std::string(what) + " cannot be written as text (TextOptions::lossy leaves them out)");
  }

  void indent(int extra) {
    for (int i = 0; i < level_ + extra; ++i) out_ += "  ";
  }
  /// `item(0)`, `sep`, `item(1)`, ...
  template <class F>
  void each(std::size_t n, const char* sep, F&& item) {
    for (std::size_t i = 0; i < n; ++i) {
      if (i) out_ += sep;
      item(i);
    }
  }
  /// A `<...>` list of initializers and value_info on lines of its own (nothing when empty).
  template <class F>
  void block(std::size_t n, F&& item) {
    if (n == 0) return;
    out_ += '\n';
    indent(1);
    out_ += '<';
    for (std::size_t i = 0; i < n; ++i) {
      if (i) {
        out_ += ",\n";
        indent(2);
      }
      item(i);
    }
    out_ += '>';
  }
  /// The `<key: value, ...>` line before a model's or a function's graph (nothing when empty).
  void header(const std::vector<std::string>& items) {
    if (items.empty()) return;
    out_ += '<';
    each(items.size(), ", ", [&](std::size_t i) { out_ += items[i]; });
    out_ += ">\n";
  }

  /// A name as written where a quoted string may stand: plain identifiers that are not keywords
  /// of the positions they appear in stay bare, everything else is quoted.
  static bool plain(std::string_view n) {
    if (n.empty() || !is_id_start(n.front())) return false;
    for (char c : n)
      if (!is_id_char(c)) return false;
    return !is_type_keyword(n) && !is_float_word(n);
  }
  static std::string quoted(std::string_view s) {
    std::string r = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') r += '\\';
      r += c;
    }
    r += '"';
    return r;
  }
  static std::string name(std::string_view n) { return plain(n) ? std::string(n) : quoted(n); }
  void identifier_or_fail(std::string_view id, const char* what) {
    bool ok = !id.empty() && is_id_start(id.front());
    for (char c : id) ok = ok && is_id_char(c);
    if (!ok) fail(std::string(what) + " '" + std::string(id) + "' is not an identifier, which the syntax requires");
  }

  std::string opsets(const std::vector<OperatorSetId>& o) {
    std::string s = "[";
    for (std::size_t i = 0; i < o.size(); ++i) {
      auto g = at("[" + std::to_string(i) + "]");
      aux(!o[i].unknown_fields.empty(), "", "fields unknown to oxir");
      s += i ? ", " : "";
      s += quoted(o[i].domain) + " : " + std::to_string(o[i].version);
    }
    return s + "]";
  }
  std::string pairs(const std::vector<StringStringEntry>& e) {
    std::string s = "[";
    for (std::size_t i = 0; i < e.size(); ++i) {
      auto g = at("[" + std::to_string(i) + "]");
      aux(!e[i].unknown_fields.empty(), "", "fields unknown to oxir");
      s += i ? ", " : "";
      s += quoted(e[i].key) + ": " + quoted(e[i].value);
    }
    return s + "]";
  }

  void nodes(const std::vector<Node>& ns) {
    out_ += " {\n";
    ++level_;
    for (std::size_t i = 0; i < ns.size(); ++i) {
      auto g = at("node[" + std::to_string(i) + "]");
      indent(0);
      node(ns[i]);
      out_ += '\n';
    }
    --level_;
    indent(0);
    out_ += '}';
  }

  void node(const Node& n) {
    aux(!n.doc_string.empty(), "doc_string", "a node's doc string");
    aux(!n.metadata_props.empty(), "metadata_props", "a node's metadata_props");
    aux(!n.device_configurations.empty(), "device_configurations", "device configurations");
    aux(!n.unknown_fields.empty(), "", "fields unknown to oxir");
    if (!n.name.empty() || n.presence.has(3)) out_ += "[" + name(n.name) + "] ";
    each(n.outputs.size(), ", ", [&](std::size_t i) { out_ += name(n.outputs[i]); });
    out_ += n.outputs.empty() ? "= " : " = ";
    if (!n.domain.empty()) {
      std::size_t start = 0;
      for (;;) {
        const auto dot = n.domain.find('.', start);
        identifier_or_fail(std::string_view(n.domain).substr(start, dot == std::string::npos ? std::string::npos : dot - start),
                           "a part of the operator's domain");
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      out_ += n.domain + '.';
    }
    identifier_or_fail(n.op_type, "the operator");
    out_ += n.op_type;
    if (!n.overload.empty()) {
      identifier_or_fail(n.overload, "the overload");
      out_ += ':' + n.overload;
    }
    if (!n.attributes.empty()) {
      out_ += " <";
      for (std::size_t i = 0; i < n.attributes.size(); ++i) {
        auto g = at("attribute[" + std::to_string(i) + "]");
        out_ += i ? ", " : "";
        attribute(n.attributes[i]);
      }
      out_ += '>';
    }
    out_ += " (";
    each(n.inputs.size(), ", ", [&](std::size_t i) { out_ += name(n.inputs[i]); });
    out_ += ')';
  }
  /// Attribute names are identifiers in onnx's grammar; others are quoted (oxir's extension).
  static std::string attribute_name(std::string_view n) {
    bool id = !n.empty() && is_id_start(n.front());
    for (char c : n) id = id && is_id_char(c);
    return id ? std::string(n) : quoted(n);
  }

  void attribute(const Attribute& a) {
    aux(!a.doc_string.empty(), "doc_string", "an attribute's doc string");
    aux(!a.unknown_fields.empty(), "", "fields unknown to oxir");
    if (a.name.empty()) fail("an empty attribute name cannot be written as text");
    out_ += attribute_name(a.name);
    if (!a.ref_attr_name.empty() || a.presence.has(21)) {
      if (a.value.index() != 0) fail("an attribute reference that also holds a value cannot be written as text");
      if (a.ref_attr_name.empty()) fail("an empty attribute reference cannot be written as text");
      if (a.type != AttributeType::UNDEFINED) {
        const auto t = attribute_type_text(a.type);
        if (t.empty()) fail("attribute type " + std::to_string(static_cast<int>(a.type)) + " has no name in the syntax");
        out_ += ": ";
        out_ += t;
      }
      out_ += " = @" + name(a.ref_attr_name);
      return;
    }
    const auto kind = static_cast<AttributeType>(a.value.index());
    if (a.value.index() == 0) fail("an attribute without a value cannot be written as text");
    if (a.type == AttributeType::UNDEFINED) aux(true, "type", "an attribute without its type field (IR version 1)");
    else if (a.type != kind)
      fail("an attribute whose type field (" + std::string(attribute_type_name(a.type)) + ") is not the kind of its value (" +
           std::string(attribute_type_name(kind)) + ") cannot be written as text");
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, float>) {
            out_ += " = " + float_text(v, true);
          } else if constexpr (std::is_same_v<V, std::int64_t>) {
            out_ += " = " + std::to_string(v);
          } else if constexpr (std::is_same_v<V, std::string>) {
            out_ += " = " + quoted(v);
          } else if constexpr (std::is_same_v<V, Box<Tensor>>) {
            out_ += " = ";
            auto g = at("t");
            tensor_constant(*v);
          } else if constexpr (std::is_same_v<V, Box<Graph>>) {
            out_ += " = ";
            auto g = at("g");
            graph(*v);
          } else if constexpr (std::is_same_v<V, Box<Type>>) {
            out_ += " = ";
            auto g = at("tp");
            type(*v);
          } else if constexpr (std::is_same_v<V, Box<SparseTensor>> || std::is_same_v<V, std::vector<SparseTensor>>) {
            fail("sparse tensors have no textual syntax");
          } else if constexpr (std::is_same_v<V, std::monostate>) {
          } else {
            if (v.empty()) {
              out_ += ": ";
              out_ += attribute_type_text(kind);
            }
            out_ += " = [";
            for (std::size_t i = 0; i < v.size(); ++i) {
              out_ += i ? ", " : "";
              using E = typename V::value_type;
              if constexpr (std::is_same_v<E, float>) {
                out_ += float_text(v[i], true);
              } else if constexpr (std::is_same_v<E, std::int64_t>) {
                out_ += std::to_string(v[i]);
              } else if constexpr (std::is_same_v<E, std::string>) {
                out_ += quoted(v[i]);
              } else if constexpr (std::is_same_v<E, Tensor>) {
                auto g = at("tensors[" + std::to_string(i) + "]");
                tensor_constant(v[i]);
              } else if constexpr (std::is_same_v<E, Graph>) {
                auto g = at("graphs[" + std::to_string(i) + "]");
                graph(v[i]);
              } else if constexpr (std::is_same_v<E, Type>) {
                auto g = at("type_protos[" + std::to_string(i) + "]");
                type(v[i]);
              }
            }
            out_ += ']';
          }
        },
        a.value);
  }

  void value_info(const ValueInfo& v) {
    aux(!v.doc_string.empty(), "doc_string", "a value's doc string");
    aux(!v.metadata_props.empty(), "metadata_props", "a value's metadata_props");
    aux(!v.unknown_fields.empty(), "", "fields unknown to oxir");
    if (v.type && !(lossy_ && v.type->is_empty() && v.type->denotation.empty())) {
      auto g = at("type");
      type(*v.type);
      out_ += ' ';
    }
    out_ += name(v.name);
  }

  void shape(const std::optional<Shape>& s) {
    if (!s) {
      out_ += "[]";
      return;
    }
    aux(!s->unknown_fields.empty(), "shape", "fields unknown to oxir");
    if (s->dims.empty()) return;
    out_ += '[';
    for (std::size_t i = 0; i < s->dims.size(); ++i) {
      const auto& d = s->dims[i];
      aux(!d.denotation.empty(), "shape.dim[" + std::to_string(i) + "]", "dimension denotations");
      aux(!d.unknown_fields.empty(), "shape.dim[" + std::to_string(i) + "]", "fields unknown to oxir");
      out_ += i ? ", " : "";
      if (d.is_value()) out_ += std::to_string(d.dim_value());
      else if (d.is_param()) out_ += name(d.dim_param());
      else out_ += '?';
    }
    out_ += ']';
  }
  std::string elem_name(DataType t) {
    if (t == DataType::UNDEFINED || !is_known(t))
      fail("element type " + std::to_string(static_cast<int>(t)) + " has no name in the syntax");
    return lower(data_type_name(t));
  }
  void type(const Type& t) {
    aux(!t.denotation.empty(), "denotation", "type denotations");
    aux(!t.unknown_fields.empty(), "", "fields unknown to oxir");
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate>) {
            fail("a type that names no kind of value cannot be written as text (TextOptions::lossy leaves such a "
                 "value's type out)");
          } else if constexpr (std::is_same_v<V, TensorType> || std::is_same_v<V, SparseTensorType>) {
            aux(!v.unknown_fields.empty(), "", "fields unknown to oxir");
            const bool sparse = std::is_same_v<V, SparseTensorType>;
            if (sparse) out_ += "sparse_tensor(";
            out_ += elem_name(v.elem_type);
            shape(v.shape);
            if (sparse) out_ += ')';
          } else if constexpr (std::is_same_v<V, SequenceType> || std::is_same_v<V, OptionalType>) {
            aux(!v.unknown_fields.empty(), "", "fields unknown to oxir");
            if (!v.elem_type) fail("a sequence or optional type without its element type cannot be written as text");
            out_ += std::is_same_v<V, SequenceType> ? "seq(" : "optional(";
            auto g = at("elem_type");
            type(*v.elem_type);
            out_ += ')';
          } else if constexpr (std::is_same_v<V, MapType>) {
            aux(!v.unknown_fields.empty(), "", "fields unknown to oxir");
            if (!v.value_type) fail("a map type without its value type cannot be written as text");
            out_ += "map(" + elem_name(v.key_type) + ", ";
            auto g = at("value_type");
            type(*v.value_type);
            out_ += ')';
          } else if constexpr (std::is_same_v<V, OpaqueType>) {
            aux(!v.unknown_fields.empty(), "", "fields unknown to oxir");
            if (v.name.empty() && !v.domain.empty()) fail("an opaque type with a domain but no name cannot be written as text");
            out_ += "opaque(";
            if (!v.domain.empty()) out_ += qualified(v.domain) + ", ";
            if (!v.name.empty()) out_ += qualified(v.name);
            out_ += ')';
          }
        },
        t.value);
  }
  static std::string qualified(std::string_view s) {
    std::size_t start = 0;
    bool ok = !s.empty();
    while (ok) {
      const auto dot = s.find('.', start);
      const auto part = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
      ok = !part.empty() && is_id_start(part.front());
      for (char c : part) ok = ok && is_id_char(c);
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    return ok ? std::string(s) : quoted(s);
  }

  // ---- tensors ----
  void tensor_type_text(const Tensor& t) {
    out_ += elem_name(t.data_type);
    if (!t.dims.empty()) {
      out_ += '[';
      each(t.dims.size(), ", ", [&](std::size_t i) { out_ += std::to_string(t.dims[i]); });
      out_ += ']';
    }
  }
  /// `float[2] name = {1.0, 2.0}` (the name left out when empty).
  void tensor_constant(const Tensor& t) {
    tensor_type_text(t);
    if (!t.name.empty()) out_ += ' ' + name(t.name);
    out_ += " = ";
    tensor_data(t);
  }
  void tensor_data(const Tensor& t) {
    aux(!t.doc_string.empty(), "doc_string", "a tensor's doc string");
    aux(!t.metadata_props.empty(), "metadata_props", "a tensor's metadata_props");
    aux(!t.unknown_fields.empty(), "", "fields unknown to oxir");
    if (t.segment) fail("a tensor segment cannot be written as text");
    for (auto d : t.dims)
      if (d < 0) fail("a negative dim cannot be written as text");
    if (t.is_external()) {
      if (!t.strings.empty()) fail("an external tensor with string data cannot be written as text");
      auto g = at("external_data");
      out_ += pairs(t.external_data);
      return;
    }
    if (t.data_location != DataLocation::DEFAULT)
      fail("data_location " + std::to_string(static_cast<int>(t.data_location)) + " cannot be written as text");
    if (!t.external_data.empty()) fail("external_data entries on a tensor stored inline cannot be written as text");
    const auto count = t.element_count();
    if (!count) fail("the tensor's dims overflow");
    if (t.data_type == DataType::STRING) {
      if (!t.data.empty()) fail("a string tensor with raw bytes cannot be written as text");
      if (t.strings.size() != *count)
        fail(std::to_string(t.strings.size()) + " strings for " + std::to_string(*count) + " elements");
      out_ += '{';
      each(t.strings.size(), ", ", [&](std::size_t i) { out_ += quoted(t.strings[i]); });
      out_ += '}';
      return;
    }
    if (!t.strings.empty()) fail("string data on a tensor of element type " + elem_name(t.data_type));
    const auto need = t.expected_bytes();
    const auto bytes = t.bytes();
    if (!need || *need != bytes.size())
      fail("a payload of " + std::to_string(bytes.size()) + " bytes does not fit the dims and element type");
    if (is_sub_byte(t.data_type)) {
      const auto per_byte = static_cast<std::uint64_t>(8 / bit_width(t.data_type));
      const auto used = static_cast<unsigned>((*count % per_byte) * static_cast<std::uint64_t>(bit_width(t.data_type)));
      if (used != 0 && (std::to_integer<unsigned>(bytes.back()) >> used) != 0)
        fail("padding bits after the last element are not zero, which text cannot keep");
    }
    out_ += '{';
    const auto n = is_complex(t.data_type) ? 2 * *count : *count;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i) out_ += ", ";
      element(t, bytes, static_cast<std::size_t>(i));
    }
    out_ += '}';
  }
  template <class T>
  static T load(std::span<const std::byte> b, std::size_t i) {
    T v;
    std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  void element(const Tensor& t, std::span<const std::byte> b, std::size_t i) {
    switch (t.data_type) {
      case DataType::FLOAT:
      case DataType::COMPLEX64: out_ += float_text(load<float>(b, i), false); return;
      case DataType::DOUBLE:
      case DataType::COMPLEX128: out_ += float_text(load<double>(b, i), false); return;
      case DataType::INT8: out_ += std::to_string(load<std::int8_t>(b, i)); return;
      case DataType::UINT8: out_ += std::to_string(load<std::uint8_t>(b, i)); return;
      case DataType::INT16: out_ += std::to_string(load<std::int16_t>(b, i)); return;
      case DataType::UINT16:
      case DataType::FLOAT16:
      case DataType::BFLOAT16: out_ += std::to_string(load<std::uint16_t>(b, i)); return;
      case DataType::INT32: out_ += std::to_string(load<std::int32_t>(b, i)); return;
      case DataType::UINT32: out_ += std::to_string(load<std::uint32_t>(b, i)); return;
      case DataType::INT64: out_ += std::to_string(load<std::int64_t>(b, i)); return;
      case DataType::UINT64: out_ += std::to_string(load<std::uint64_t>(b, i)); return;
      case DataType::BOOL: {
        const auto v = load<std::uint8_t>(b, i);
        if (v > 1) fail("bool element " + std::to_string(i) + " is byte " + std::to_string(v) + ", which text cannot keep");
        out_ += v ? "1" : "0";
        return;
      }
      case DataType::FLOAT8E4M3FN:
      case DataType::FLOAT8E4M3FNUZ:
      case DataType::FLOAT8E5M2:
      case DataType::FLOAT8E5M2FNUZ:
      case DataType::FLOAT8E8M0: out_ += std::to_string(load<std::uint8_t>(b, i)); return;
      case DataType::FLOAT4E2M1:
      case DataType::UINT4:
      case DataType::UINT2: out_ += std::to_string(get_packed(b, i, bit_width(t.data_type))); return;
      case DataType::INT4: {
        const int v = get_packed(b, i, 4);
        out_ += std::to_string(v >= 8 ? v - 16 : v);
        return;
      }
      case DataType::INT2: {
        const int v = get_packed(b, i, 2);
        out_ += std::to_string(v >= 2 ? v - 4 : v);
        return;
      }
      default: fail("tensors of element type " + elem_name(t.data_type) + " cannot be written as text");
    }
  }
  /// The shortest text that reads back as `v`; with `mark`, always recognisable as floating point.
  template <class F>
  std::string float_text(F v, bool mark) {
    using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
    if (std::isnan(v)) {
      const U bits = std::bit_cast<U>(v);
      const U quiet = std::bit_cast<U>(std::numeric_limits<F>::quiet_NaN());
      const U sign = U{1} << (sizeof(U) * 8 - 1);
      if (bits == quiet) return "nan";
      if (bits == (quiet | sign)) return "-nan";
      fail("a NaN with payload bits cannot be written as text");
    }
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    std::string s(buf.data(), r.ptr);
    if (mark && s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }

  bool lossy_;
  std::string out_;
  int level_ = 0;
};

}  // namespace detail::text

/// Reads a model written in ONNX's textual syntax: an optional `<key: value, ...>` header
/// (ir_version, opset_import, producer_name, producer_version, domain, model_version, doc_string,
/// metadata_props), the main graph, then any number of functions. Throws oxir::Error naming the
/// field being read and the line and column.
[[nodiscard]] inline Model parse_text_model(std::string_view text) {
  detail::text::Parser p(text, "");
  auto m = p.model();
  return m;
}

/// Reads one graph: `name (inputs) => (outputs) <initializers and value_info> { nodes }`.
[[nodiscard]] inline Graph parse_text_graph(std::string_view text) {
  detail::text::Parser p(text, "graph");
  auto g = p.graph();
  p.finish("the graph");
  return g;
}

/// Reads one function: `<domain: ..., opset_import: [...]> name <attributes> (inputs) =>
/// (outputs) <value_info> { nodes }`.
[[nodiscard]] inline Function parse_text_function(std::string_view text) {
  detail::text::Parser p(text, "");
  auto f = p.function();
  p.finish("the function");
  return f;
}

/// The model in ONNX's textual syntax, such that parse_text_model gives back an equal model.
/// Throws oxir::Error (naming the field) for what the syntax cannot express: training
/// information, sparse tensors, names that must be identifiers but are not, NaN payloads, tensors
/// whose payload does not fit their dims; and, unless `options.lossy`, for documentation and
/// annotations (see TextOptions).
[[nodiscard]] inline std::string to_text(const Model& model, const TextOptions& options = {}) {
  detail::text::Writer w(options);
  w.model(model);
  return w.take();
}

/// One graph in the textual syntax (see to_text(const Model&)).
[[nodiscard]] inline std::string to_text(const Graph& graph, const TextOptions& options = {}) {
  detail::text::Writer w(options);
  w.graph(graph);
  return w.take();
}

/// One function in the textual syntax (see to_text(const Model&)).
[[nodiscard]] inline std::string to_text(const Function& function, const TextOptions& options = {}) {
  detail::text::Writer w(options);
  w.function(function);
  return w.take();
}

/// Reads a model file in the textual syntax (by convention `.onnxtxt`). External data is
/// looked up relative to the file's folder, as load_model does (`options.load_external_data`
/// reads it at once, `options.verify_checksums` checks it; `options.decode` does not apply).
/// Throws oxir::Error naming the file, the field and the line and column.
[[nodiscard]] inline Model load_text_model(const std::filesystem::path& path, const LoadOptions& options = {}) {
  const auto file = io::read_file_bytes(path);
  try {
    const std::string_view text(reinterpret_cast<const char*>(file.bytes.data()), file.bytes.size());
    Model m = parse_text_model(text);
    if (io::tensor_storage(m).external) io::attach_external_data(m, path.parent_path(), options.load_external_data, options.verify_checksums);
    return m;
  } catch (const Error& e) {
    throw Error(path.string() + (e.path().empty() ? "" : ": " + e.path()), e.message());
  }
}

/// Writes a model file in the textual syntax. Tensors loaded from external data are written
/// inline, with their values (a text file has no data files beside it); an external tensor
/// built by hand, without values in memory, stays the reference it is. Throws oxir::Error as
/// to_text does, leaving `path` untouched.
inline void save_text_model(const Model& model, const std::filesystem::path& path, const TextOptions& options = {}) {
  const auto write = [&](const Model& m) {
    const std::string text = to_text(m, options);
    io::replace_file(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
  };
  // Only a model with payloads in external data files needs the copy that bring_inline edits.
  if (!io::tensor_storage(model).reads_external) return write(model);
  Model out = model;  // shares every payload
  (void)io::bring_inline(out);
  write(out);
}

}  // namespace oxir
