// The engine's lookup tables: NameMap (scopes), the symbol table's names, OpRegistry. Each is a
// vector searched linearly up to detail::NameIndex::kLinear entries and hashed beyond: every test
// crosses that threshold and checks lookups on both sides of it.

#include <doctest/doctest.h>

#include <oxir/infer.hpp>

#include <string>
#include <vector>

namespace oxir_unit_test_infer_tables {

using namespace oxir;
using namespace oxir::infer;

namespace {
void rule_a(InferContext&) {}
void rule_b(InferContext&) {}
}  // namespace

TEST_CASE("NameMap: insertion order, lookups, assignment below and above the hashing threshold") {
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) names.push_back("value_" + std::to_string(i) + (i % 3 ? "" : "_with_a_long_suffix"));
  NameMap<int> m;
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(m.find(names[i]) == nullptr);
    m[names[i]] = static_cast<int>(i);
    CHECK(m.size() == i + 1);
    // Everything inserted so far is still found (the index is rebuilt as it grows).
    if (i == infer::detail::NameIndex::kLinear - 1 || i == infer::detail::NameIndex::kLinear || i == 100 || i == names.size() - 1)
      for (std::size_t k = 0; k <= i; ++k) {
        const int* v = m.find(names[k]);
        REQUIRE(v != nullptr);
        CHECK(*v == static_cast<int>(k));
      }
  }
  CHECK_FALSE(m.contains("value_"));
  CHECK_FALSE(m.contains("value_1000"));
  CHECK_FALSE(m.contains(""));
  m.assign(names[7], 70);  // existing key: replaced, not appended
  m.assign("extra", 1);
  CHECK(m.size() == names.size() + 1);
  CHECK(*m.find(names[7]) == 70);
  CHECK(*m.find("extra") == 1);
  // Iteration is in insertion order.
  std::size_t k = 0;
  for (const auto& [name, v] : m) {
    if (k < names.size()) CHECK(name == names[k]);
    ++k;
  }
  CHECK(k == m.size());
  // Reserving first (as scopes do) gives the same answers.
  NameMap<int> r;
  r.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) r.append(names[i], static_cast<int>(i));
  for (std::size_t i = 0; i < names.size(); i += 37) CHECK(*r.find(names[i]) == static_cast<int>(i));
  // The empty name is a key like any other.
  NameMap<int> e;
  e[""] = 5;
  CHECK(e.contains(""));
  CHECK(*e.find("") == 5);
}

TEST_CASE("SymbolTable: named symbols stay unique past the hashing threshold") {
  SymbolTable t;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 200; ++i) ids.push_back(t.named("dim_" + std::to_string(i)));
  CHECK(t.size() == 200);
  for (int i = 0; i < 200; ++i) {
    CHECK(t.named("dim_" + std::to_string(i)) == ids[static_cast<std::size_t>(i)]);
    CHECK(t.name(ids[static_cast<std::size_t>(i)]) == "dim_" + std::to_string(i));
  }
  CHECK(t.size() == 200);
  // Fresh names skip every name in use.
  t.named("unk__0");
  t.reserve("unk__1");
  const auto f = t.fresh();
  CHECK(t.name(f) == "unk__2");
  CHECK(t.named("unk__2") == f);
}

TEST_CASE("OpRegistry: lookups by domain and op type, replacement, the ai.onnx alias") {
  OpRegistry r;
  for (int i = 0; i < 100; ++i) r.add("", "Op" + std::to_string(i), &rule_a);
  r.add("com.example", "Op5", &rule_b);
  r.add("ai.onnx", "Op6", &rule_b);  // same as the default domain: replaces
  CHECK(r.size() == 101);
  CHECK((r.find("", "Op0") == &rule_a));
  CHECK((r.find("ai.onnx", "Op99") == &rule_a));
  CHECK((r.find("", "Op5") == &rule_a));
  CHECK((r.find("com.example", "Op5") == &rule_b));
  CHECK((r.find("", "Op6") == &rule_b));
  CHECK((r.find("com.example", "Op6") == nullptr));
  CHECK((r.find("", "Op100") == nullptr));
  CHECK((r.find("", "") == nullptr));
  std::size_t n = 0;
  r.for_each([&](std::string_view, std::string_view) { ++n; });
  CHECK(n == r.size());
  // The standard registry knows the default-domain operators under both spellings.
  const auto& s = OpRegistry::standard();
  CHECK((s.find("", "Add") != nullptr));
  CHECK((s.find("ai.onnx", "Add") == s.find("", "Add")));
  CHECK((s.find("", "NoSuchOp") == nullptr));
}

}  // namespace oxir_unit_test_infer_tables
