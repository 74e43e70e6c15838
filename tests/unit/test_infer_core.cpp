// The inference core: canonical size expressions, the model-wide symbol table, and the engine
// (order, scopes, diagnostics, keep/overwrite) driven by small rules registered here.
#include <doctest/doctest.h>

#include <limits>
#include <thread>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_core {

using namespace oxir;
using namespace oxir::infer;
using namespace oxir_test;

namespace {
std::string str(const DimExpr& e) {
  return e.to_string([](std::int64_t id) { return std::string(1, static_cast<char>('A' + id)); });
}
// Independent evaluation for the property test: substitute values and compute directly.
std::int64_t fdiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
}  // namespace

TEST_CASE("DimExpr: canonical forms print equal when equal") {
  const auto N = DimExpr::symbol(13), M = DimExpr::symbol(12), H = DimExpr::symbol(7);
  CHECK(str(N + M) == "M+N");
  CHECK(N + M == M + N);
  CHECK(str(2 * N - 1) == "2*N-1");
  CHECK(str(N - N) == "0");
  CHECK(str(N * M * H) == str(H * (M * N)));
  CHECK(str(floor_div(H - 1, 2) + 1) == "floor((H+1)/2)");
  CHECK(floor_div(H - 1, 2) + 1 == ceil_div(H, 2));
  CHECK(str(floor_div(2 * H + 4, 2)) == "H+2");
  CHECK(str(floor_div(2 * H + 2, 4)) == "floor((H+1)/2)");
  CHECK(str(*exact_div(N * M * H, N * H)) == "M");
  CHECK_FALSE(exact_div(N + 1, N).has_value());
  CHECK(str(max(N, N + 1)) == "N+1");
  CHECK(str(min(N, M)) == "min(M,N)");
  CHECK(min(N, M) == min(M, N));
  CHECK(str(mod(N, 4)) == "N-4*floor(N/4)");
  CHECK(floor_div(DimExpr(7), DimExpr(-2)).const_value() == -4);
  CHECK_THROWS_AS((void)floor_div(N, DimExpr(0)), Error);
}

TEST_CASE("DimExpr: floors equal by the floor identities print equal") {
  const auto N = DimExpr::symbol(13), M = DimExpr::symbol(12), H = DimExpr::symbol(7);
  // a factor of the divisor and of every coefficient, whatever the constant
  CHECK(str(floor_div(2 * H + 3, 4)) == "floor((H+1)/2)");
  CHECK(floor_div(6 * H + 5, 9) == floor_div(2 * H + 1, 3));
  // nested floors with coefficient 1 merge: strided convolutions in a row, window padding
  CHECK(str(floor_div(floor_div(H, 2), 3)) == "floor(H/6)");
  CHECK(str(floor_div(floor_div(floor_div(H - 1, 2) + 1 - 1, 2) + 1 - 1, 2) + 1) == "floor((H+7)/8)");
  CHECK(floor_div(floor_div(H, 2) + N, 3) == floor_div(H + 2 * N, 6));
  CHECK(str(32 * floor_div(floor_div(floor_div(H + 1, 2) + 1, 2) + 1, 2)) == "32*floor((H+7)/8)");
  // the complement form: 7*ceil(H/7) written as H + (7 - H mod 7) mod 7, or 7H - 7*floor(6H/7)
  CHECK(H + mod(7 - mod(H, 7), 7) == 7 * ceil_div(H, 7));
  CHECK(7 * H - 7 * floor_div(6 * H, 7) == 7 * ceil_div(H, 7));
  CHECK(str(floor_div(6 * H, 7)) == "H-floor((H+6)/7)");
  CHECK(floor_div(3 * N + 3 * M + 1, 4) == N + M - floor_div(N + M + 2, 4));
  // ties (coefficients summing the same either way) keep the form they are written in
  CHECK(str(floor_div(H, 2)) == "floor(H/2)");
  CHECK(str(ceil_div(H, 2)) == "floor((H+1)/2)");
  CHECK(str(floor_div(N + 3 * M, 4)) == "floor((3*M+N)/4)");
  // halves: floor(x/2m) + floor((x+m)/2m) = floor(x/m); the form with fewest terms is kept
  CHECK(H - floor_div(H, 2) == ceil_div(H, 2));
  CHECK(str(N + M - floor_div(N + M, 2)) == "floor((M+N+1)/2)");
  CHECK(floor_div(H, 2) + ceil_div(H, 2) == H);
  const DimExpr c = floor_div(H, 4);  // ceil(c/2) twice: Swin's patch merging after a stride-4 stem
  CHECK(str(c - floor_div(c, 2)) == "floor((H+4)/8)");
  CHECK(c - floor_div(c, 2) == ceil_div(c, 2));
  const DimExpr c2 = c - floor_div(c, 2);
  CHECK(str(c2 - floor_div(c2, 2)) == "floor((H+12)/16)");
  CHECK(str(mod(H, 2)) == "H-2*floor(H/2)");          // as many terms either way: no upper half
  CHECK(str(H + ceil_div(H, 2)) == "H+floor((H+1)/2)");  // smaller coefficients than 2*H-floor(H/2)
  CHECK(str(M + floor_div(H, 2)) == "M+floor(H/2)");
  // two nested floors: neither is merged (which one would be a choice)
  CHECK(str(floor_div(floor_div(H, 2) + floor_div(N, 2), 2)) == "floor((floor(H/2)+floor(N/2))/2)");
}

TEST_CASE("DimExpr: an inference's memo of merged floor halves gives the forms the merge gives") {
  const auto H = DimExpr::symbol(7), T = DimExpr::symbol(19);
  auto sums = [&] {
    const DimExpr c = floor_div(H, 4), q = floor_div(T + 1, 4), h = floor_div(T + 1, 2);
    return std::vector<DimExpr>{c - floor_div(c, 2),
                                floor_div(H, 2) + ceil_div(H, 2),
                                (c - floor_div(c, 2)) - floor_div(c - floor_div(c, 2), 2),
                                q - h,
                                3 - 2 * q - floor_div(T + 3, 4),
                                2 * T - 4 * h - 12,
                                5 - T - 2 * q,
                                min(q - 1, 2 * q - 3) + 1 - h,
                                floor_div(H + 1, 2) - 2};
  };
  std::vector<std::string> direct;
  for (const auto& e : sums()) direct.push_back(str(e));
  CHECK(direct[0] == "floor((H+4)/8)");
  CHECK(direct[1] == "H");
  CHECK(direct[3] == "-floor((T+3)/4)");
  infer::detail::FloorHalvesMemo memo;
  infer::detail::floor_halves_memo = &memo;
  std::vector<std::string> first, again;
  for (const auto& e : sums()) first.push_back(str(e));
  const std::size_t entries = memo.entries.size();
  for (const auto& e : sums()) again.push_back(str(e));
  infer::detail::floor_halves_memo = nullptr;
  CHECK(first == direct);
  CHECK(again == direct);
  CHECK(entries > 0);
  CHECK(memo.entries.size() == entries);  // the second pass found every sum in the memo
}

TEST_CASE("DimExpr: a floor half whose relation cannot shorten the sum is passed over") {
  const auto H = DimExpr::symbol(7), M = DimExpr::symbol(12);
  const auto atom = [](const DimExpr& e) { return e.terms().at(0).factors.at(0); };
  const DimExpr lo = floor_div(H, 4), up = floor_div(H + 2, 4), whole = floor_div(H, 2);
  // The sum holds one of the relation's terms (lo) and nothing else of it: no better form.
  CHECK(infer::detail::relation_cannot_shorten((lo - 3 * floor_div(H, 16)).terms(), atom(lo), atom(up), whole));
  CHECK(infer::detail::relation_cannot_shorten((lo + M).terms(), atom(lo), atom(up), whole));
  // Two of them (both halves, or a half and the whole): the relation may shorten it.
  CHECK_FALSE(infer::detail::relation_cannot_shorten((lo + M).terms(), atom(lo), atom(up), up + M));
  infer::detail::in_floor_halves = true;  // the sums as written, unmerged
  const DimExpr halves = lo + up + M, half_whole = lo - whole;
  infer::detail::in_floor_halves = false;
  CHECK_FALSE(infer::detail::relation_cannot_shorten(halves.terms(), atom(lo), atom(up), whole));
  CHECK_FALSE(infer::detail::relation_cannot_shorten(half_whole.terms(), atom(lo), atom(up), whole));
  // ... and the merge still finds those forms.
  CHECK(str(lo + up + M) == "M+floor(H/2)");
  CHECK(str(lo - whole) == "-floor((H+2)/4)");
  // A sum of halves by different divisors (Swin's window padding) stays as it is, and costs
  // little: the relations are not built.
  const std::uint64_t before = infer::detail::expr_work;
  const DimExpr e = floor_div(H, 2) - 4 * floor_div(H, 8);
  const std::uint64_t spent = infer::detail::expr_work - before;
  CHECK(str(e) == "floor(H/2)-4*floor(H/8)");
  CHECK(spent < 60);
}

TEST_CASE("DimExpr: a sum negative with every size 0 is refuted without trying bounds") {
  const auto T = DimExpr::symbol(3);
  std::int64_t budget = 4096;
  CHECK_FALSE(ops::nonneg(floor_div(T + 1, 4) - 1, budget));
  CHECK(budget > 4096 - 8);  // its two terms visited, nothing more
  CHECK(ops::nonneg(T - 2 * floor_div(T, 2), budget));
  CHECK(ops::nonneg(floor_div(T + 3, 4) - floor_div(T, 4), budget));
  CHECK_FALSE(ops::provably_le(floor_div(T, 2), floor_div(T, 4)).has_value());
}

TEST_CASE("DimExpr: a sum negative at large sizes, or with sizes apart, is refuted without trying bounds") {
  const auto T = DimExpr::symbol(3), A = DimExpr::symbol(4), B = DimExpr::symbol(5);
  std::int64_t budget = 4096;
  // 3 at T = 0, below 0 from T = 7 on: only a large sample shows it.
  CHECK_FALSE(ops::nonneg(DimExpr(3) - floor_div(T + 1, 4) - floor_div(T + 1, 2), budget));
  CHECK(budget > 4096 - 8);
  // 0 when A and B are equal (both 0, both large); below 0 when A is 0 and B is not.
  CHECK_FALSE(ops::nonneg(A - B - floor_div(A, 2) + floor_div(B, 2), budget));
  CHECK(budget > 4096 - 16);
  // What the samples cannot refute is still proven.
  CHECK(ops::nonneg(floor_div(T + 1, 2) - 2 * floor_div(T + 1, 4), budget));
}

TEST_CASE("Size facts: comparisons that fail at a sample size build no sums") {
  // The conformer's max(0, min(F-1, 2F-3)), F = floor((T+1)/4), against the fact
  // floor((T+1)/2) - 1 >= 0, which proves neither operand below the other.
  const auto T = DimExpr::symbol(1);
  const DimExpr F = floor_div(T + 1, 4);
  const infer::SizeFact useless{DimExpr(1), DimExpr(0), floor_div(T + 1, 2) - 1};
  const DimExpr low = F - 1, high = 2 * F - 3;
  std::int64_t budget = 1 << 18;
  const std::uint64_t work = infer::detail::expr_work;
  CHECK_FALSE(infer::facts_detail::le_under(high, low, useless, budget));
  CHECK(infer::detail::expr_work == work);  // refuted on numbers: no sum was built
  CHECK(budget == 1 << 18);
  // The fact 2F - 3 >= 0 (so F >= 2) does prove F - 1 <= 2F - 3.
  const infer::SizeFact enough{DimExpr(1), DimExpr(0), 2 * F - 3};
  CHECK(infer::facts_detail::le_under(low, high, enough, budget));
  const std::vector<infer::SizeFact> facts = {useless, enough};
  CHECK(str(infer::apply_size_facts(infer::max(DimExpr(0), infer::min(F - 1, 2 * F - 3)), facts, budget)) ==
        str(F - 1));
}

TEST_CASE("DimExpr: operations agree with integer arithmetic at sample points") {
  const auto N = DimExpr::symbol(0), M = DimExpr::symbol(1);
  const std::vector<std::pair<DimExpr, std::function<std::int64_t(std::int64_t, std::int64_t)>>> cases = {
      {floor_div(N - 3, 2) + 1, [](auto n, auto) { return fdiv(n - 3, 2) + 1; }},
      {ceil_div(3 * N + M, 4), [](auto n, auto m) { return -fdiv(-(3 * n + m), 4); }},
      {mod(N + 5, 3), [](auto n, auto) { return ((n + 5) % 3 + 3) % 3; }},
      {floor_div(N * M, M + 1), [](auto n, auto m) { return fdiv(n * m, m + 1); }},
      {max(N - 2, M) + min(N, 2 * M), [](auto n, auto m) { return std::max(n - 2, m) + std::min(n, 2 * m); }},
      {(N + M) * (N - M), [](auto n, auto m) { return n * n - m * m; }},
      {floor_div(floor_div(N + 1, 2) + 1, 2), [](auto n, auto) { return fdiv(fdiv(n + 1, 2) + 1, 2); }},
      {floor_div(6 * N + 3 * M + 2, 7), [](auto n, auto m) { return fdiv(6 * n + 3 * m + 2, 7); }},
      {floor_div(4 * N + 6 * M + 5, 8), [](auto n, auto m) { return fdiv(4 * n + 6 * m + 5, 8); }},
      {floor_div(floor_div(N, 3) + 2 * M - 1, 4), [](auto n, auto m) { return fdiv(fdiv(n, 3) + 2 * m - 1, 4); }},
      {floor_div(floor_div(5 * N + 4, 6) + N * M + 5, 3),
       [](auto n, auto m) { return fdiv(fdiv(5 * n + 4, 6) + n * m + 5, 3); }},
      {floor_div(3 * floor_div(N + M, 4) + 1, 4), [](auto n, auto m) { return fdiv(3 * fdiv(n + m, 4) + 1, 4); }},
      {mod(7 - mod(N, 7), 7) + N, [](auto n, auto) { return ((7 - ((n % 7) + 7) % 7) % 7 + 7) % 7 + n; }},
      {floor_div(5 * N * M + 9 * M + 11, 6), [](auto n, auto m) { return fdiv(5 * n * m + 9 * m + 11, 6); }},
  };
  for (const auto& [e, f] : cases)
    for (std::int64_t n = -7; n <= 9; ++n)
      for (std::int64_t m = 0; m <= 5; ++m) {
        auto v = e.evaluate([&](std::int64_t id) -> std::optional<std::int64_t> { return id == 0 ? n : m; });
        REQUIRE(v.has_value());
        CHECK_MESSAGE(*v == f(n, m), str(e) << " at N=" << n << " M=" << m);
      }
}

TEST_CASE("DimExpr: random floor/mod/ceil/min/max expressions evaluate as integer arithmetic does") {
  // Seeded random expression trees over two symbols, built both as DimExprs (canonical forms,
  // floor identities) and as functions computed directly; compared at sample points, negatives
  // included (the identities hold for all integers).
  struct Node {
    DimExpr e;
    std::function<std::int64_t(std::int64_t, std::int64_t)> f;
  };
  std::uint64_t state = 12345;
  auto rnd = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % n);
  };
  std::function<Node(int)> gen = [&](int depth) -> Node {
    if (depth == 0 || rnd(5) == 0) {
      switch (rnd(3)) {
        case 0: return {DimExpr::symbol(0), [](auto n, auto) { return n; }};
        case 1: return {DimExpr::symbol(1), [](auto, auto m) { return m; }};
        default: {
          const std::int64_t c = rnd(9) - 2;
          return {DimExpr(c), [c](auto, auto) { return c; }};
        }
      }
    }
    Node a = gen(depth - 1);
    const std::int64_t k = rnd(7) + 2;
    switch (rnd(7)) {
      case 0: {
        Node b = gen(depth - 1);
        return {a.e + b.e, [fa = a.f, fb = b.f](auto n, auto m) { return fa(n, m) + fb(n, m); }};
      }
      case 1: {
        Node b = gen(depth - 1);
        return {a.e - b.e, [fa = a.f, fb = b.f](auto n, auto m) { return fa(n, m) - fb(n, m); }};
      }
      case 2: {
        const std::int64_t c = rnd(7) + 1;
        return {c * a.e, [fa = a.f, c](auto n, auto m) { return c * fa(n, m); }};
      }
      case 3: return {floor_div(a.e, DimExpr(k)), [fa = a.f, k](auto n, auto m) { return fdiv(fa(n, m), k); }};
      case 4: return {ceil_div(a.e, DimExpr(k)), [fa = a.f, k](auto n, auto m) { return -fdiv(-fa(n, m), k); }};
      case 5:
        return {mod(a.e, DimExpr(k)), [fa = a.f, k](auto n, auto m) { return fa(n, m) - k * fdiv(fa(n, m), k); }};
      default: {
        Node b = gen(depth - 1);
        return {min(a.e, b.e), [fa = a.f, fb = b.f](auto n, auto m) { return std::min(fa(n, m), fb(n, m)); }};
      }
    }
  };
  int checked = 0;
  for (int i = 0; i < 400; ++i) {
    const Node x = gen(5);
    for (std::int64_t n = -9; n <= 17; n += 2)
      for (std::int64_t m = -3; m <= 12; m += 3) {
        auto v = x.e.evaluate([&](std::int64_t id) -> std::optional<std::int64_t> { return id == 0 ? n : m; });
        REQUIRE(v.has_value());
        if (*v != x.f(n, m)) FAIL_CHECK(str(x.e) << " at A=" << n << " B=" << m << ": " << *v << " != " << x.f(n, m));
        ++checked;
      }
  }
  CHECK(checked == 400 * 14 * 6);
}

TEST_CASE("DimExpr: what the engine prints reads back as the same expression") {
  // The same seeded random trees (sums, multiples, floor, ceil, mod, min, max over two
  // symbols), printed with names and parsed again: the same values at every sample point, and
  // the same printed form (a dim_param written by oxir means what it says when read back).
  std::uint64_t state = 777;
  auto rnd = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % n);
  };
  const auto a = DimExpr::symbol(0), b = DimExpr::symbol(1);
  std::function<DimExpr(int)> gen = [&](int depth) -> DimExpr {
    if (depth == 0 || rnd(5) == 0) {
      switch (rnd(3)) {
        case 0: return a;
        case 1: return b;
        default: return DimExpr(rnd(9) - 2);
      }
    }
    const DimExpr x = gen(depth - 1);
    const std::int64_t k = rnd(7) + 2;
    switch (rnd(9)) {
      case 0: return x + gen(depth - 1);
      case 1: return x - gen(depth - 1);
      case 2: return (rnd(7) + 1) * x;
      case 3: return x * gen(depth - 1);
      case 4: return floor_div(x, DimExpr(k));
      case 5: return ceil_div(x, DimExpr(k));
      case 6: return mod(x, DimExpr(k));
      case 7: return max(x, gen(depth - 1));
      default: return min(x, gen(depth - 1));
    }
  };
  const auto names = [](std::int64_t id) { return std::string(id == 0 ? "seq_len" : "past.1"); };
  const auto symbol_of = [](std::string_view n) -> std::optional<std::int64_t> {
    if (n == "seq_len") return 0;
    if (n == "past.1") return 1;
    return std::nullopt;
  };
  int parsed = 0;
  for (int i = 0; i < 600; ++i) {
    DimExpr x;
    try {
      x = gen(5);
    } catch (const Error&) {
      continue;  // too large
    }
    if (x.is_const()) continue;
    const std::string text = x.to_string(names);
    const auto back = parse_dim_expr(text, symbol_of);
    REQUIRE_MESSAGE(back.has_value(), text);
    CHECK_MESSAGE(back->to_string(names) == text, text);
    for (std::int64_t n = -5; n <= 13; n += 3)
      for (std::int64_t m = 0; m <= 9; m += 3) {
        auto at = [&](const DimExpr& e) {
          return e.evaluate([&](std::int64_t id) -> std::optional<std::int64_t> { return id == 0 ? n : m; });
        };
        CHECK_MESSAGE(at(*back) == at(x), text);
      }
    ++parsed;
  }
  CHECK(parsed > 300);
}

TEST_CASE("parse_dim_expr: the forms tools write, and what it refuses to guess") {
  const auto n = DimExpr::symbol(0), s = DimExpr::symbol(1);
  const auto symbol_of = [](std::string_view x) -> std::optional<std::int64_t> {
    if (x == "N" || x == "past_sequence_length") return 0;
    if (x == "S" || x == "s0") return 1;
    return std::nullopt;
  };
  auto parse = [&](std::string_view t) { return parse_dim_expr(t, symbol_of); };
  CHECK(parse("N+1") == n + 1);
  CHECK(parse("past_sequence_length + 1") == n + 1);  // Hugging Face exports
  CHECK(parse("2*s0") == 2 * s);                       // torch.export
  CHECK(parse("s0//2") == floor_div(s, DimExpr(2)));
  CHECK(parse("(s0 - 1)//2 + 1") == floor_div(s - 1, DimExpr(2)) + 1);
  CHECK(parse("floor((S-1)/2)+1") == floor_div(s - 1, DimExpr(2)) + 1);
  CHECK(parse("floor(2*S/3)") == floor_div(2 * s, DimExpr(3)));
  CHECK(parse("ceiling(S/4)") == ceil_div(s, DimExpr(4)));
  CHECK(parse("ceil(S/4)") == ceil_div(s, DimExpr(4)));
  CHECK(parse("Max(1, s0)") == max(DimExpr(1), s));
  CHECK(parse("min(N,S,64)") == min(min(n, s), DimExpr(64)));
  CHECK(parse("-N+S*N") == s * n - n);
  CHECK(parse(" ( N ) ") == n);
  // Not guessed at: a bare '/', a dividend that is a sum or a divisor that is a product, powers,
  // numbers glued to names, decimals, unknown names or functions, no name at all, division by 0.
  for (const char* t : {"N/2", "floor(N+1/2)", "floor(N/S*2)", "N**2", "2N", "1.5*N", "batch size", "T+1", "Mod(N,2)",
                        "abs(N)", "", "3", "4+5", "N//0", "N+", "(N", "N)", "N,S", "99999999999999999999+N",
                        "9223372036854775807*N+9223372036854775807*N"})
    CHECK_MESSAGE(!parse(t).has_value(), std::string(t));
  // Nesting is bounded: deep parentheses give no expression (and no deep recursion).
  std::string deep(300, '(');
  deep += "N";
  deep += std::string(300, ')');
  CHECK(!parse(deep).has_value());
  std::string shallow(30, '(');
  shallow += "N";
  shallow += std::string(30, ')');
  CHECK(parse(shallow) == n);
}

TEST_CASE("first_size_name: the name the parser asks about first, when nothing else comes first") {
  CHECK(first_size_name("Squeeze/Squeeze_output_0_dim_2") == "Squeeze");
  CHECK(first_size_name(" N + 1") == "N");
  CHECK(first_size_name("2*floor((H+1)/2)") == "H");
  CHECK(first_size_name("min (  a, b)") == "a");
  CHECK(first_size_name("Max(1, s0)") == "s0");
  for (const char* t : {"", "3", "4+5", "2N+S", "abs(N)", "1.5*N", "floor(2)"})
    CHECK_MESSAGE(!first_size_name(t).has_value(), std::string(t));
  // Against the parser: the name it reports is the first the parser asks about; refused, the
  // parse fails having asked about nothing else.
  for (const char* t : {"Squeeze/Squeeze_output_0_dim_2", "N+1", "past_sequence_length + 1", "2*s0", "(s0 - 1)//2 + 1",
                        "floor((S-1)/2)+1", "ceiling(S/4)", "Max(1, s0)", "min(N,S,64)", "-N+S*N", " ( N ) ",
                        "batch size", "T+1", "N/2", "floor(N/S*2)", "3*(N", "x_dim_0/y"}) {
    const auto first = first_size_name(t);
    for (const bool refuse : {false, true}) {
      std::vector<std::string> asked;
      const auto r = parse_dim_expr(t, [&](std::string_view x) -> std::optional<std::int64_t> {
        asked.emplace_back(x);
        if (refuse && asked.size() == 1) return std::nullopt;
        return static_cast<std::int64_t>(asked.size());
      });
      if (!first) continue;
      CHECK_MESSAGE(!asked.empty(), std::string(t));
      if (!asked.empty()) CHECK_MESSAGE(asked[0] == *first, std::string(t));
      if (refuse) {
        CHECK_MESSAGE(!r.has_value(), std::string(t));
        CHECK_MESSAGE(asked.size() == 1, std::string(t));
      }
    }
  }
}

namespace {
// A float tensor value whose dims are all dim_params (value_info_of reads "2*N" as the number 2).
ValueInfo params_vi(const std::string& name, const std::vector<std::string>& dims) {
  TensorType t;
  t.elem_type = DataType::FLOAT;
  Shape sh;
  for (const auto& d : dims) sh.dims.emplace_back(d);
  t.shape = std::move(sh);
  ValueInfo v;
  v.name = name;
  v.type = Type(std::move(t));
  return v;
}
}  // namespace

TEST_CASE("Declared dims written as expressions of input dims are those expressions") {
  // A value typed by value_info only (its operator has no rule) with a dim "S+1": twice it is
  // 2*S+2. Before, "S+1" was an opaque name and twice it printed "2*S+1", which reads as
  // another size. A name that is no such expression stays a name, printed in parentheses
  // inside expressions.
  auto model = [](const std::string& dim) {
    Model m = make_model({Node("Foo", {"x"}, {"y"}), Node("Concat", {"y", "y"}, {"z"}), Node("Concat", {"y", "x"}, {"w"})},
                         {{"x", DataType::FLOAT, {"S"}}});
    m.graph.nodes[0].domain = "my";
    m.set_opset_version("my", 1);
    m.graph.nodes[1].set_attribute(Attribute("axis", std::int64_t{0}));
    m.graph.nodes[2].set_attribute(Attribute("axis", std::int64_t{0}));
    m.graph.outputs.clear();
    for (const char* o : {"z", "w"}) {
      ValueInfo v;
      v.name = o;
      m.graph.outputs.push_back(v);
    }
    m.graph.value_info.push_back(params_vi("y", {dim}));
    return m;
  };
  Model m = model("S+1");
  infer_shapes(m);
  CHECK(type_of(m, "z") == "FLOAT[2*S+2]");
  CHECK(type_of(m, "w") == "FLOAT[2*S+1]");
  m = model("S plus one");
  infer_shapes(m);
  CHECK(type_of(m, "z") == "FLOAT[2*(S plus one)]");
  CHECK(type_of(m, "w") == "FLOAT[S+(S plus one)]");
  m = model("T+1");  // T is no input dim, nor a dim_param of its own: a name
  infer_shapes(m);
  CHECK(type_of(m, "z") == "FLOAT[2*(T+1)]");
  // T a dim_param of another value (as oxir writes a fresh "unk__2" beside "unk__2+3"): T+1 is
  // an expression of it.
  m = model("T+1");
  m.graph.nodes[0].outputs.push_back("q");
  m.graph.value_info.push_back(params_vi("q", {"T"}));
  m.graph.nodes.push_back(Node("Concat", {"y", "q"}, {"yq"}));
  m.graph.nodes.back().set_attribute(Attribute("axis", std::int64_t{0}));
  m.graph.outputs.push_back(ValueInfo{});
  m.graph.outputs.back().name = "yq";
  infer_shapes(m);
  CHECK(type_of(m, "z") == "FLOAT[2*T+2]");
  CHECK(type_of(m, "yq") == "FLOAT[2*T+1]");
  // A declared expression that contradicts the inferred one is a conflict.
  Model c = make_model({Node("Concat", {"x", "x"}, {"z"})}, {{"x", DataType::FLOAT, {"S"}}});
  c.graph.nodes[0].set_attribute(Attribute("axis", std::int64_t{0}));
  c.graph.outputs[0] = params_vi("z", {"2*S+1"});
  CHECK(infer_shapes(c).conflicts == 1);
  c.graph.outputs[0] = params_vi("z", {"S*2"});
  CHECK(infer_shapes(c).conflicts == 0);
  // Graph inputs related by their dims: b is declared twice as long as a.
  Model r = make_model({Node("Concat", {"a", "a"}, {"aa"}), Node("Add", {"aa", "b"}, {"sum"})},
                       {{"a", DataType::FLOAT, {"N"}}});
  r.graph.inputs.push_back(params_vi("b", {"2*N"}));
  r.graph.nodes[0].set_attribute(Attribute("axis", std::int64_t{0}));
  const auto rep = infer_shapes(r);
  CHECK(rep.conflicts == 0);
  CHECK(type_of(r, "sum") == "FLOAT[2*N]");
}

TEST_CASE("nonneg: random expressions it proves are >= 0 at every size") {
  // Seeded random sums of floors, mins and maxes over two symbols (sizes, so >= 0). Whatever
  // nonneg proves must hold at every point of a grid of sizes; what it proves is counted so the
  // test cannot pass by proving nothing.
  using oxir::infer::ops::nonneg;
  std::uint64_t state = 777;
  auto rnd = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % n);
  };
  const auto A = DimExpr::symbol(0), B = DimExpr::symbol(1);
  std::function<DimExpr(int)> gen = [&](int depth) -> DimExpr {
    if (depth == 0 || rnd(4) == 0) {
      switch (rnd(3)) {
        case 0: return A;
        case 1: return B;
        default: return DimExpr(rnd(7) - 3);
      }
    }
    const DimExpr a = gen(depth - 1);
    switch (rnd(8)) {
      case 0: return a + gen(depth - 1);
      case 1: return a - gen(depth - 1);
      case 2: return DimExpr(rnd(4) + 1) * a;
      case 3: return DimExpr(-(rnd(3) + 1)) * a;
      case 4: return floor_div(a, DimExpr(rnd(6) + 2));
      case 5: return ceil_div(a, DimExpr(rnd(6) + 2));
      case 6: return min(a, gen(depth - 1));
      default: return max(a, gen(depth - 1));
    }
  };
  int proven = 0, tried = 0;
  for (int i = 0; i < 3000; ++i) {
    // a size-like expression minus a smaller part, so that nonneg has something to prove
    const DimExpr e = gen(3) - gen(2);
    ++tried;
    if (!nonneg(e)) continue;
    ++proven;
    for (std::int64_t a = 0; a <= 40; ++a)
      for (std::int64_t b = 0; b <= 40; b += 3) {
        auto v = e.evaluate([&](std::int64_t id) -> std::optional<std::int64_t> { return id == 0 ? a : b; });
        REQUIRE(v.has_value());
        if (*v < 0) FAIL_CHECK("nonneg(" << str(e) << ") but it is " << *v << " at A=" << a << " B=" << b);
      }
  }
  CHECK(tried == 3000);
  CHECK(proven >= 300);
  // The rounding step: 3*(L - floor((L+2)/3)) >= 2L - 2 >= -2, so L - floor((L+2)/3) > -1.
  CHECK(nonneg(A - floor_div(A + 2, 3)));
  CHECK_FALSE(nonneg(A - floor_div(A + 3, 3)));  // A = 0: -1
  // That proof does arithmetic (the bound), charged to the proof's budget and to the allowance
  // one inference shares among all its proofs: with none left it fails, unproven.
  const auto saved = infer::detail::proof_allowance;
  infer::detail::proof_allowance = 0;
  CHECK_FALSE(nonneg(A - floor_div(A + 2, 3)));
  CHECK(nonneg(A + floor_div(A, 3)));  // needs no bound: no arithmetic, no allowance
  infer::detail::proof_allowance = saved;
  CHECK(nonneg(A - floor_div(A + 2, 3)));
  std::int64_t budget = 1;  // too little for the arithmetic of the bound
  CHECK_FALSE(nonneg(A - floor_div(A + 2, 3), budget));
}

TEST_CASE("SymbolTable: merging, binding, names") {
  SymbolTable t;
  const auto batch = t.named("batch", SymbolOrigin::GraphInput);
  const auto b2 = t.named("b2");
  const auto u = t.fresh();
  CHECK(t.name(u) == "unk__0");
  CHECK(t.unify(DimExpr::symbol(u), DimExpr::symbol(b2)) == Unify::Merged);
  CHECK(t.name(u) == "b2");  // a declared name beats a fresh one
  CHECK(t.unify(DimExpr::symbol(b2), DimExpr::symbol(batch)) == Unify::Merged);
  CHECK(t.name(u) == "batch");  // graph-input names are the roots
  CHECK(t.to_string(DimExpr::symbol(u) + 1) == "batch+1");
  CHECK(t.unify(2 * DimExpr::symbol(u) + 1, DimExpr(9)) == Unify::Merged);
  CHECK(t.to_string(DimExpr::symbol(b2)) == "4");
  CHECK(t.unify(DimExpr::symbol(batch), DimExpr(5)) == Unify::Conflict);
  const auto s = t.named("S");
  CHECK(t.unify(DimExpr::symbol(s) + 1, DimExpr::symbol(s)) == Unify::Conflict);
  t.reserve("unk__1");
  CHECK(t.name(t.fresh()) == "unk__2");
  // A name used only inside an expression is never a fresh name either (the expression reads as
  // that name plus 3), but it is not a dim_param of its own.
  t.reserve("unk__3+3");
  t.reserve("floor((unk__4+1)/2)");
  CHECK(t.name(t.fresh()) == "unk__5");
  CHECK(t.is_model_name("unk__3+3"));
  CHECK(!t.is_model_name("unk__3"));
  CHECK(t.is_model_name("unk__1"));
}

TEST_CASE("SymbolTable: a fresh size equated with an expression of other sizes becomes it") {
  SymbolTable t;
  const auto h = DimExpr::symbol(t.named("H", SymbolOrigin::GraphInput));
  const auto w = DimExpr::symbol(t.named("W", SymbolOrigin::GraphInput));
  const auto x = DimExpr::symbol(t.fresh()), y = DimExpr::symbol(t.fresh()), z = DimExpr::symbol(t.fresh());
  // X == 2*H: X is 2*H everywhere, inside other expressions too.
  CHECK(t.unify(x, 2 * h) == Unify::Merged);
  CHECK(t.to_string(x + w) == t.to_string(w + 2 * h));
  CHECK(t.to_string(x) == "2*H");
  CHECK(t.unify(x, 2 * h) == Unify::Equal);
  // Y + 3 == W: Y is W-3. Z == Y*H: the binding of Y shows through Z's.
  CHECK(t.unify(y + 3, w) == Unify::Merged);
  CHECK(t.unify(z, y * h) == Unify::Merged);
  CHECK(t.to_string(z) == t.to_string((w - 3) * h));
  // k*X + c == e: k*X is exactly e - c, so X is floor((e - c)/k) (2*X == H: H is even).
  const auto p = DimExpr::symbol(t.fresh()), q = DimExpr::symbol(t.fresh());
  CHECK(t.unify(2 * p, h) == Unify::Merged);
  CHECK(t.to_string(p) == t.to_string(floor_div(h, DimExpr(2))));
  CHECK(t.unify(w + 1, 3 * q + 2 * h) == Unify::Merged);  // 3*Q == W + 1 - 2*H
  CHECK(t.to_string(q) == t.to_string(floor_div(w + 1 - 2 * h, DimExpr(3))));
  // Named sizes are the model's own: N == M+1 is not turned into a rewrite of either.
  const auto n = DimExpr::symbol(t.named("N", SymbolOrigin::GraphInput));
  const auto m = DimExpr::symbol(t.named("M"));
  CHECK(t.unify(n, m + 1) == Unify::Undecided);
  CHECK(t.to_string(n) == "N");
  // A fresh size that also appears inside the other side is not solved for (X2 == floor(X2/2)+1
  // has the solutions 1 and 2).
  const auto x2 = DimExpr::symbol(t.fresh());
  CHECK(t.unify(x2, floor_div(x2, DimExpr(2)) + 1) == Unify::Undecided);
  CHECK(t.value(x2.as_symbol().value()) == std::nullopt);
  // A binding to a number later shows through every expression: W = 10 makes Y 7 and Z 7*H.
  CHECK(t.unify(w, DimExpr(10)) == Unify::Merged);
  CHECK(t.value(y.as_symbol().value()) == 7);
  CHECK(t.to_string(z) == "7*H");
  // ... and conflicts through the binding are found: Y == 8 is now 7 == 8.
  CHECK(t.unify(y, DimExpr(8)) == Unify::Conflict);
  // compare() (sizes equal only where a branch runs) records nothing.
  const auto f = DimExpr::symbol(t.fresh());
  CHECK(t.compare(f, h + 1) == Unify::Undecided);
  CHECK(t.to_string(f) == t.name(f.as_symbol().value()));
}

TEST_CASE("SymbolTable: long chains of bound fresh sizes resolve without recursion") {
  // X0 == X1+1, X1 == X2+1, ... bound in that order: X0's expression is stale by n levels.
  SymbolTable t;
  const auto h = DimExpr::symbol(t.named("H", SymbolOrigin::GraphInput));
  constexpr int n = 20000;
  std::vector<DimExpr> x;
  for (int i = 0; i <= n; ++i) x.push_back(DimExpr::symbol(t.fresh()));
  for (int i = 0; i < n; ++i) REQUIRE(t.unify(x[i], x[i + 1] + 1) == Unify::Merged);
  REQUIRE(t.unify(x[n], h) == Unify::Merged);
  CHECK(t.to_string(x[0]) == "H+" + std::to_string(n));
  CHECK(t.to_string(x[n / 2]) == "H+" + std::to_string(n - n / 2));
  // Squaring at each level: the expression would have 2^k factors; past the size limit the
  // binding is dropped and the symbol names the size (a claim left out, never a wrong one).
  SymbolTable u;
  const auto g = DimExpr::symbol(u.named("G", SymbolOrigin::GraphInput));
  std::vector<DimExpr> y;
  for (int i = 0; i <= 40; ++i) y.push_back(DimExpr::symbol(u.fresh()));
  for (int i = 0; i < 40; ++i) REQUIRE(u.unify(y[i], y[i + 1] * y[i + 1]) == Unify::Merged);
  REQUIRE(u.unify(y[40], g + 1) == Unify::Merged);
  const std::string s = u.to_string(y[0]);
  CHECK(s == u.name(y[0].as_symbol().value()));
  CHECK(u.to_string(y[39]) == u.to_string((g + 1) * (g + 1)));
}

namespace {
void rule_same(InferContext& c) {  // output = broadcast of all inputs, elem of input 0
  std::vector<const Dims*> shapes;
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    if (!c.input_shape(i)) return c.set_output(0, ValueType::tensor(c.input_elem(0)));
    shapes.push_back(c.input_shape(i));
  }
  c.set_output(0, c.input_elem(0), c.broadcast(std::span<const Dims* const>(shapes)));
}
void rule_needs_axis(InferContext& c) {
  const auto axis = c.require_int("axis");
  const auto r = c.input_rank(0);
  if (!r) return;
  (void)c.normalize_axis(axis, *r);
  c.set_output(0, c.input_type(0));
}
InferReport run(Model& m, InferOptions o = {}) {
  OpRegistry reg;
  reg.add("", "Add", &rule_same);
  reg.add("", "Axis", &rule_needs_axis);
  Engine e(m, o, reg);
  return e.run();
}
}  // namespace

TEST_CASE("Engine: unsorted graphs are inferred in dependency order; names flow") {
  // c = a + b; d = c + a — written in reverse order.
  auto m = make_model({Node("Add", {"c", "a"}, {"d"}), Node("Add", {"a", "b"}, {"c"})},
                      {{"a", DataType::FLOAT, {"N", "1"}}, {"b", DataType::FLOAT, {"1", "?"}}});
  m.graph.outputs = {ValueInfo{}};
  m.graph.outputs[0].name = "d";
  auto rep = run(m);
  CHECK(rep.nodes == 2);
  CHECK(type_of(m, "c") == "FLOAT[N,b_dim1]");  // unnamed input dims get stable names
  CHECK(type_of(m, "d") == "FLOAT[N,b_dim1]");
  CHECK(rep.diagnostics.empty());
}

TEST_CASE("Engine: an unnamed input dim never takes a name the model gives another dim") {
  // x's dim 1 has no name; "x_dim1" is y's. Naming x's dim "x_dim1" would make the two one
  // size, and x + y would claim y's size even where y's is 1 and x's is not.
  auto m = make_model({Node("Add", {"x", "x"}, {"xi"}), Node("Add", {"x", "y"}, {"z"})},
                      {{"x", DataType::FLOAT, {"3", "?"}}, {"y", DataType::FLOAT, {"3", "x_dim1"}}});
  m.graph.outputs.push_back(ValueInfo{});
  m.graph.outputs.back().name = "xi";
  const auto rep = run(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "xi") == "FLOAT[3,x_dim1_1]");
  const auto z = type_of(m, "z");
  CHECK(z.rfind("FLOAT[3,unk__", 0) == 0);  // either may be 1
}

TEST_CASE("Engine: a broadcast settled by what later nodes show about its operands") {
  // z = x + y with x [N], y [M]: either may be 1, so z gets a fresh size. The MatMul after it
  // contracts N with M: then z is N (= M) in every run, written back as such.
  auto m = make_model({Node("Add", {"x", "y"}, {"z"}), Node("MatMul", {"a", "b"}, {"p"})},
                      {{"x", DataType::FLOAT, {"N"}}, {"y", DataType::FLOAT, {"M"}},
                       {"a", DataType::FLOAT, {"3", "N"}}, {"b", DataType::FLOAT, {"M", "4"}}});
  m.graph.outputs.push_back(ValueInfo{});
  m.graph.outputs.back().name = "z";
  auto rep = oxir::infer_shapes(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "z") == "FLOAT[N]");
  // A later node that shows an operand to be a number other than 1: the result is that number.
  auto k = make_model({Node("Add", {"x", "y"}, {"z"}), Node("MatMul", {"a", "w"}, {"p"})},
                      {{"x", DataType::FLOAT, {"N"}}, {"y", DataType::FLOAT, {"M"}},
                       {"a", DataType::FLOAT, {"3", "M"}}, {"w", DataType::FLOAT, {"5", "4"}}});
  k.graph.outputs.push_back(ValueInfo{});
  k.graph.outputs.back().name = "z";
  rep = oxir::infer_shapes(k);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(k, "z") == "FLOAT[5]");
  // Where nothing relates the operands, the result stays a fresh symbol.
  auto open = make_model({Node("Add", {"x", "y"}, {"z"})}, {{"x", DataType::FLOAT, {"N"}}, {"y", DataType::FLOAT, {"M"}}});
  (void)oxir::infer_shapes(open);
  CHECK(type_of(open, "z") == "FLOAT[unk__0]");
}

TEST_CASE("Engine: broadcasting claims only what is implied") {
  auto m = make_model({Node("Add", {"a", "b"}, {"c"})},
                      {{"a", DataType::FLOAT, {"N", "M", "3", "K", "1"}}, {"b", DataType::FLOAT, {"N", "L", "1", "4", "0"}}});
  run(m);
  // N==N; M vs L could broadcast either way: fresh; 3 vs 1: 3; K vs 4: K is 1 or 4, result 4; 1 vs 0: 0.
  CHECK(type_of(m, "c") == "FLOAT[N,unk__0,3,4,0]");
  auto bad = make_model({Node("Add", {"a", "b"}, {"c"})}, {{"a", DataType::FLOAT, {"3"}}, {"b", DataType::FLOAT, {"4"}}});
  auto rep = run(bad);
  REQUIRE(rep.conflicts == 1);
  CHECK(rep.diagnostics.at(0).where == "graph.node[0]");
  CHECK(rep.diagnostics.at(0).kind == DiagnosticKind::Conflict);
  CHECK_THROWS_AS(run(bad, InferOptions{.strict = true}), Error);
}

TEST_CASE("Engine: a size that can never be 1 is what it broadcasts to") {
  // 2*M is even and M+2 at least 2: a run that broadcasts N against either has N equal to it
  // or 1, so the result is that size. M against N stays ambiguous (either may be 1).
  auto m = make_model({Node("Concat", {"a", "a"}, {"twice"}), Node("Concat", {"a", "two"}, {"plus2"}),
                       Node("Add", {"twice", "n"}, {"s1"}), Node("Add", {"n", "plus2"}, {"s2"}),
                       Node("Add", {"a", "n"}, {"s3"}), Node("Add", {"twice", "plus2"}, {"s4"})},
                      {{"a", DataType::FLOAT, {"M"}}, {"two", DataType::FLOAT, {"2"}}, {"n", DataType::FLOAT, {"N"}}});
  m.graph.nodes[0].set_attribute(Attribute("axis", std::int64_t{0}));
  m.graph.nodes[1].set_attribute(Attribute("axis", std::int64_t{0}));
  const auto rep = oxir::infer_shapes(m);
  CHECK(rep.conflicts == 0);
  CHECK(type_of(m, "s1") == "FLOAT[2*M]");
  CHECK(type_of(m, "s2") == "FLOAT[M+2]");
  CHECK(type_of(m, "s3") == "FLOAT[unk__0]");
  CHECK(type_of(m, "s4") == "FLOAT[2*M]");  // both never 1: equal in every run (M = 2), the first is kept
  using oxir::infer::ops::never_one;
  const auto H = DimExpr::symbol(7), W = DimExpr::symbol(22);
  CHECK(never_one(2 * floor_div(H + 31, 32)));
  CHECK(never_one(H * W + 2));
  CHECK(never_one(DimExpr(0)));
  CHECK_FALSE(never_one(DimExpr(1)));
  CHECK_FALSE(never_one(H));
  CHECK_FALSE(never_one(floor_div(H + 15, 16)));  // 1 for H in 1..16
  CHECK_FALSE(never_one(H * W));
  CHECK_FALSE(never_one(2 * H - 1));              // 1 at H = 1
  CHECK_FALSE(never_one(H - W));
  // A coefficient of -2^63 (a fuzzed model reached one): its magnitude is 2^63, even, so with
  // an even constant the size is never 1; taking the gcd must not negate it in int64.
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  CHECK(never_one(DimExpr(kMin) * H + 2));
  CHECK(never_one(DimExpr(kMin) * H + DimExpr(kMin) * W));
  CHECK_FALSE(never_one(DimExpr(kMin) * H + 1));  // H = 0 gives 1
}

TEST_CASE("Engine: runs on one thread share storage, never state") {
  // Each engine takes the thread's cached workspace; nothing of one model may show in the next:
  // fresh names restart at unk__0, a symbol bound to a number in one model is free in the next,
  // and an engine created while another runs (or one left by an exception) changes nothing.
  auto ambiguous = [] {
    return make_model({Node("Add", {"a", "b"}, {"c"})}, {{"a", DataType::FLOAT, {"N", "M"}}, {"b", DataType::FLOAT, {"N", "L"}}});
  };
  auto binds_n = make_model({Node("Add", {"a", "b"}, {"c"})}, {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::FLOAT, {"5"}}});
  for (int round = 0; round < 3; ++round) {
    auto m = ambiguous();
    run(m);
    CHECK(type_of(m, "c") == "FLOAT[N,unk__0]");
    run(binds_n);
    CHECK(type_of(binds_n, "c") == "FLOAT[5]");
    auto bad = make_model({Node("Add", {"a", "b"}, {"c"})}, {{"a", DataType::FLOAT, {"3"}}, {"b", DataType::FLOAT, {"4"}}});
    CHECK_THROWS_AS(run(bad, InferOptions{.strict = true}), Error);
  }
  // Two engines alive at once (the second gets storage of its own).
  auto m1 = ambiguous(), m2 = ambiguous();
  OpRegistry reg;
  reg.add("", "Add", &rule_same);
  Engine outer(m1, InferOptions{}, reg);
  {
    Engine inner(m2, InferOptions{}, reg);
    (void)inner.run();
  }
  (void)outer.run();
  CHECK(type_of(m1, "c") == "FLOAT[N,unk__0]");
  CHECK(type_of(m2, "c") == "FLOAT[N,unk__0]");
  CHECK(outer.syms.size() == 4);  // N, M, L and unk__0: none of the inner run's
}

TEST_CASE("infer_shapes on several threads at once gives what it gives on one") {
  // Each thread has its own cached workspace; models differ per thread and per iteration so that
  // storage left by one model is reused by a different one.
  auto make = [](int k) {
    const std::string n = "N" + std::to_string(k % 5);
    std::vector<In> ins{{"a", DataType::FLOAT, {n, "M", std::to_string(1 + k % 3)}},
                        {"b", DataType::FLOAT, {n, "L", "1"}}};
    std::vector<Node> nodes{Node("Add", {"a", "b"}, {"c"}), Node("Relu", {"c"}, {"d"}), Node("Shape", {"d"}, {"s"})};
    if (k % 2) nodes.emplace_back("Transpose", std::vector<std::string>{"d"}, std::vector<std::string>{"t"});
    return make_model(std::move(nodes), ins);
  };
  auto answer = [&](int k) {
    auto m = make(k);
    (void)oxir::infer_shapes(m);
    std::string r;
    for (const char* v : {"c", "d", "s", "t"}) r += std::string(v) + ":" + type_of(m, v) + ";";
    return r;
  };
  constexpr int kModels = 40, kThreads = 4;
  std::vector<std::string> expected(kModels);
  for (int k = 0; k < kModels; ++k) expected[static_cast<std::size_t>(k)] = answer(k);
  CHECK(expected[1].find("t:FLOAT[2,unk__0,N1]") != std::string::npos);
  std::vector<std::vector<std::string>> got(kThreads, std::vector<std::string>(kModels));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round)
        for (int k = 0; k < kModels; ++k) got[static_cast<std::size_t>(t)][static_cast<std::size_t>((k + t) % kModels)] = answer((k + t) % kModels);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(got[static_cast<std::size_t>(t)] == expected);
}

TEST_CASE("Engine: malformed and unknown nodes give diagnostics, not crashes") {
  auto m = make_model({Node("Axis", {"a"}, {"b"}), Node("Axis", {"a"}, {"c"}), Node("Mystery", {"a"}, {"d"}, "m", "com.x")},
                      {{"a", DataType::FLOAT, {"N"}}});
  m.graph.nodes[1].set_attribute(Attribute("axis", std::int64_t{5}));
  auto rep = run(m);
  CHECK(rep.nodes_failed == 2);
  CHECK(rep.nodes_unsupported == 1);
  REQUIRE(rep.diagnostics.size() == 3);
  CHECK(rep.diagnostics[0].message.find("axis") != std::string::npos);
  CHECK(rep.diagnostics[1].message.find("out of range") != std::string::npos);
  CHECK(rep.diagnostics[2].op_type == "com.x::Mystery");
  CHECK(type_of(m, "d") == "?");
}

TEST_CASE("Engine: a model of IR version 1 or 2 without opset_import is read at opset 1") {
  // Concat-1's axis is optional (default 1); from Concat-4 on it is required. onnx's checker
  // accepts this model at IR version 2 (and asks for opset_import from IR version 3 on).
  const auto concat = [](std::int64_t ir) {
    auto m = make_model({Node("Concat", {"a", "a"}, {"c"})}, {{"a", DataType::FLOAT, {"N", "3"}}});
    m.ir_version = ir;
    m.opset_imports.clear();
    auto rep = oxir::infer_shapes(m);  // the standard rules
    return std::make_pair(type_of(m, "c"), rep.nodes_failed);
  };
  CHECK(concat(2) == std::make_pair(std::string("FLOAT[N,6]"), std::size_t{0}));
  CHECK(concat(1) == std::make_pair(std::string("FLOAT[N,6]"), std::size_t{0}));
  // From IR version 3 a missing import is a malformed model: the newest version is assumed.
  CHECK(concat(3).second == 1);
}

TEST_CASE("Engine: names nothing defines, or defined twice, are diagnosed by node and name") {
  auto run = [](Model& m, InferOptions o = {}) { return oxir::infer_shapes(m, o); };  // every standard rule
  // z = Relu(nowhere): no graph input, initializer or node output is called "nowhere".
  auto m = make_model({Node("Relu", {"nowhere"}, {"z"}), Node("Relu", {"x"}, {"y"})}, {{"x", DataType::FLOAT, {"N"}}});
  auto rep = run(m);
  REQUIRE(rep.diagnostics.size() == 1);
  CHECK(rep.diagnostics[0].severity == Severity::Error);
  CHECK(rep.diagnostics[0].where == "graph.node[0]");
  CHECK(rep.diagnostics[0].message.find("'nowhere' is not defined") != std::string::npos);
  CHECK(type_of(m, "y") == "FLOAT[N]");  // the rest is inferred all the same
  CHECK_THROWS_WITH_AS(run(m, InferOptions{.strict = true}), doctest::Contains("nowhere"), Error);

  // "y" defined by two nodes (and "x", a graph input, by a third); "w", graph output 1 (after the
  // last node's "x"), nothing defines.
  auto dup = make_model({Node("Relu", {"x"}, {"y"}), Node("Neg", {"x"}, {"y"}), Node("Relu", {"y"}, {"x"})},
                        {{"x", DataType::FLOAT, {"N"}}});
  dup.graph.outputs.push_back(ValueInfo{});
  dup.graph.outputs.back().name = "w";
  rep = run(dup);
  REQUIRE(rep.diagnostics.size() == 3);
  CHECK(rep.diagnostics[0].where == "graph.node[1]");
  CHECK(rep.diagnostics[0].message.find("output 0 'y' is already defined") != std::string::npos);
  CHECK(rep.diagnostics[1].where == "graph.node[2]");
  CHECK(rep.diagnostics[1].message.find("'x' is already defined") != std::string::npos);
  CHECK(rep.diagnostics[2].where == "graph.output[1]");
  CHECK(rep.diagnostics[2].message.find("graph output 'w' is not defined") != std::string::npos);

  // Inside a subgraph: a branch output nothing in the branch or outside defines.
  Graph then_g, else_g;
  then_g.nodes.push_back(Node("Identity", {"x"}, {"t"}));
  then_g.outputs.push_back(ValueInfo{});
  then_g.outputs.back().name = "t";
  else_g.outputs.push_back(ValueInfo{});
  else_g.outputs.back().name = "missing";
  auto sub = make_model({Node("If", {"c"}, {"y"})}, {{"x", DataType::FLOAT, {"N"}}, {"c", DataType::BOOL, {}}});
  sub.graph.nodes[0].set_attribute(Attribute("then_branch", then_g));
  sub.graph.nodes[0].set_attribute(Attribute("else_branch", else_g));
  rep = run(sub);
  REQUIRE(rep.diagnostics.size() == 1);
  CHECK(rep.diagnostics[0].where == "graph.node[0].attribute[1].g.output[0]");
  CHECK(rep.diagnostics[0].message.find("'missing' is not defined") != std::string::npos);

  // A model-local function whose second output nothing in its body defines: the call site is
  // named; the first output is inferred all the same.
  auto fn = make_model({Node("F", {"x"}, {"f0", "f1"}, "call", "local")}, {{"x", DataType::FLOAT, {"N"}}});
  fn.set_opset_version("local", 1);
  Function f;
  f.name = "F";
  f.domain = "local";
  f.inputs = {"a"};
  f.outputs = {"b", "ghost"};
  f.nodes.push_back(Node("Relu", {"a"}, {"b"}));
  f.opset_imports.emplace_back();
  f.opset_imports.back().version = 21;
  fn.functions.push_back(f);
  rep = run(fn);
  REQUIRE(rep.diagnostics.size() == 1);
  CHECK(rep.diagnostics[0].where == "graph.node[0]{function local::F}");
  CHECK(rep.diagnostics[0].node == "call");
  CHECK(rep.diagnostics[0].message.find("function output 1 'ghost' is not defined") != std::string::npos);
  CHECK(type_of(fn, "f0") == "FLOAT[N]");

  // Sorted, well-formed graphs (and outer-scope names used in subgraphs) give no such diagnostic.
  auto ok = make_model({Node("If", {"c"}, {"y"})}, {{"x", DataType::FLOAT, {"N"}}, {"c", DataType::BOOL, {}}});
  ok.graph.nodes[0].set_attribute(Attribute("then_branch", then_g));
  ok.graph.nodes[0].set_attribute(Attribute("else_branch", then_g));
  rep = run(ok);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(ok, "y") == "FLOAT[N]");
}

TEST_CASE("Engine: keep mode uses declared value_info as facts; overwrite replaces it") {
  auto make = [] {
    auto m = make_model({Node("Add", {"a", "b"}, {"c"}), Node("Add", {"c", "a"}, {"d"})},
                        {{"a", DataType::FLOAT, {"N", "M"}}, {"b", DataType::FLOAT, {"P", "M"}}});
    m.graph.value_info.push_back(value_info_of({"c", DataType::FLOAT, {"?", "7"}}));
    return m;
  };
  auto keep = make();
  auto rep = run(keep);
  CHECK(rep.diagnostics.empty());
  // Kept as written, the unknown dim filled in: broadcast(N, P) is N, P or either (fresh).
  CHECK(type_of(keep, "c") == "FLOAT[unk__0,7]");
  // M met 7 everywhere; dim 0 is broadcast(unk__0, N): not determined, so a new symbol.
  CHECK(type_of(keep, "d") == "FLOAT[unk__2,7]");
  CHECK(keep.graph.inputs[0].type == value_info_of({"a", DataType::FLOAT, {"N", "M"}}).type);
  auto over = make();
  run(over, InferOptions{.overwrite = true});
  CHECK(type_of(over, "c") == "FLOAT[unk__0,M]");
  auto conflict = make();
  conflict.graph.value_info[0] = value_info_of({"c", DataType::FLOAT, {"?", "7", "1"}});
  CHECK(run(conflict).conflicts == 1);
}

TEST_CASE("Sizes that overflow int64 once a symbol is bound to a number: no exception, no crash") {
  // Flatten(axis=0) of X[N, 2^63-1] has the size (2^63-1)*N; Concat then binds N = 3, and
  // resolving that size at write-back overflows (tests/fuzz/regressions/resolve_overflow_at_write_back.onnx).
  const std::string big = "9223372036854775807";
  Model m = make_model({Node("Flatten", {"X"}, {"F"}), Node("Concat", {"X", "Z"}, {"C"})},
                       {{"X", DataType::FLOAT, {"N", big}}, {"Z", DataType::FLOAT, {"3", big}}});
  m.graph.nodes[0].attributes.emplace_back("axis", std::int64_t{0});
  m.graph.nodes[1].attributes.emplace_back("axis", std::int64_t{1});
  InferReport rep;
  CHECK_NOTHROW(rep = oxir::infer_shapes(m));
  // No int64 is that size: it stays an expression of N (never a wrapped-around number).
  CHECK(type_of(m, "F") == "FLOAT[1," + big + "*N]");

  // k*X + c == v with v - c or (v - c) / k out of int64 range: undecided, not a trap.
  SymbolTable syms;
  const DimExpr n = DimExpr::symbol(syms.named("N"));
  CHECK(syms.unify(DimExpr(1) - n, DimExpr(std::numeric_limits<std::int64_t>::min() + 1)) == Unify::Undecided);
  CHECK(syms.unify(DimExpr(-5) - n, DimExpr(std::numeric_limits<std::int64_t>::max())) == Unify::Undecided);
  CHECK(syms.resolve(n) == n);  // nothing was bound
  CHECK(syms.unify(DimExpr(1) - n, DimExpr(-4)) == Unify::Merged);
  CHECK(syms.resolve(n) == DimExpr(5));
}

TEST_CASE("floor division of terms whose coefficients are near the int64 limits") {
  // tests/fuzz/regressions/floor_div_remainder_near_int64_min.onnx: an AveragePool whose
  // kernel_shape is 2^63-1 and dilation -1 made a window size of -(2^63-1)*... divided by the
  // stride 3; splitting the coefficient into quotient and remainder formed floor(c/3)*3, which
  // does not fit in int64 (undefined behaviour).
  SymbolTable syms;
  const DimExpr n = DimExpr::symbol(syms.named("N"));
  const std::int64_t c = -std::numeric_limits<std::int64_t>::max();
  DimExpr q;
  CHECK_NOTHROW(q = floor_div(DimExpr(c) * n, DimExpr(3)));
  auto at = [](std::int64_t v) { return [v](std::int64_t) -> std::optional<std::int64_t> { return v; }; };
  // floor(-(2^63-1) / 3) = -3074457345618258603 (-(2^63-1) = 3 * -3074457345618258603 + 2).
  CHECK(q.evaluate(at(1)) == std::optional<std::int64_t>(-3074457345618258603));
  CHECK(q.evaluate(at(0)) == std::optional<std::int64_t>(0));
  const DimExpr r = floor_div(DimExpr(std::numeric_limits<std::int64_t>::max()) * n + DimExpr(c), DimExpr(-7));
  CHECK(r.evaluate(at(1)) == std::optional<std::int64_t>(0));
  CHECK(oxir::infer::detail::floormod_int(c, 3) == 2);
  CHECK(oxir::infer::detail::floormod_int(c, -3) == -1);
  CHECK(oxir::infer::detail::floormod_int(std::numeric_limits<std::int64_t>::min(), -1) == 0);
  CHECK(oxir::infer::detail::floormod_int(-7, 7) == 0);
}

TEST_CASE("A declared size below INT64_MIN + 1 against 1 - N (ConstantOfShape of Sub(1, Shape(X)))") {
  // tests/fuzz/regressions/unify_int64_min_rem_minus_one.onnx: solving -N + 1 == -(2^63-1)
  // divided INT64_MIN by -1 (SIGFPE).
  Model m = make_model({Node("Shape", {"X"}, {"s"}), Node("Sub", {"one", "s"}, {"d"}),
                        Node("ConstantOfShape", {"d"}, {"Y"})},
                       {{"X", DataType::FLOAT, {"N"}}}, {ints("one", {1})});
  m.graph.outputs[0].type = Type::tensor(DataType::FLOAT, Shape{Dim(std::int64_t{-9223372036854775807})});
  CHECK_NOTHROW((void)oxir::infer_shapes(m));
}

TEST_CASE("A symbolic coefficient past int64 (Concat Fibonacci chain): sizes left unknown, no error") {
  // c[i] = Concat(c[i-2], c[i-1]) has size F(i)*A + F(i+1)*B; the coefficients leave int64
  // near i = 90. The model is valid (A = B = 0 runs), so that is no rejected node, no error and
  // no strict-mode exception: the sizes from there on are left unknown, each later Concat's a
  // fresh symbol; none is a wrapped-around number.
  std::vector<Node> nodes;
  std::string a = "A_in", b = "B_in";
  for (int i = 0; i < 100; ++i) {
    const std::string c = "c" + std::to_string(i);
    nodes.push_back(Node("Concat", {a, b}, {c}));
    nodes.back().attributes.emplace_back("axis", std::int64_t{0});
    a = b;
    b = c;
  }
  Model m = make_model(std::move(nodes), {{"A_in", DataType::FLOAT, {"A"}}, {"B_in", DataType::FLOAT, {"B"}}});
  Model strict_copy = m;
  const InferReport rep = oxir::infer_shapes(m);
  CHECK(rep.nodes_failed == 0);
  CHECK_FALSE(rep.has_errors());
  bool warned = false;
  for (const auto& d : rep.diagnostics) warned = warned || d.message.find("int64 range") != std::string::npos;
  CHECK(warned);
  CHECK(type_of(m, "c0") == "FLOAT[A+B]");
  CHECK(type_of(m, "c10") == "FLOAT[89*A+144*B]");  // F(11)*A + F(12)*B
  // The rank stays known: only the concatenated size is a fresh symbol there.
  const std::string last = type_of(m, "c99");
  CHECK(last.rfind("FLOAT[", 0) == 0);
  CHECK(last.find(',') == std::string::npos);
  CHECK(last != "FLOAT[*]");
  CHECK(last.find('-') == std::string::npos);  // no negative (wrapped) coefficient
  CHECK_NOTHROW((void)oxir::infer_shapes(strict_copy, InferOptions{.strict = true}));
}

TEST_CASE("Shape-tensor contents too large to track are left unknown with a warning") {
  // (d0+d1)*(d2+d3)*...: 2^K products of K sizes each, past kMaxExprSize at K = 8. The value,
  // and the size ConstantOfShape takes from it, are unknown; a diagnostic says why.
  const int K = 8;
  std::vector<Node> nodes{Node("Shape", {"X"}, {"s"})};
  std::vector<Tensor> inits;
  std::vector<std::string> dims;
  for (int i = 0; i < 2 * K; ++i) {
    dims.push_back("d" + std::to_string(i));
    inits.push_back(ints("i" + std::to_string(i), {i}));
    nodes.push_back(Node("Gather", {"s", "i" + std::to_string(i)}, {"g" + std::to_string(i)}));
  }
  for (int i = 0; i < K; ++i)
    nodes.push_back(
        Node("Add", {"g" + std::to_string(2 * i), "g" + std::to_string(2 * i + 1)}, {"a" + std::to_string(i)}));
  std::string prev = "a0";
  for (int i = 1; i < K; ++i) {
    nodes.push_back(Node("Mul", {prev, "a" + std::to_string(i)}, {"p" + std::to_string(i)}));
    prev = "p" + std::to_string(i);
  }
  nodes.push_back(Node("ConstantOfShape", {prev}, {"Y"}));
  Model m = make_model(std::move(nodes), {{"X", DataType::FLOAT, dims}}, std::move(inits));
  const InferReport rep = oxir::infer_shapes(m);
  CHECK_FALSE(rep.has_errors());
  bool warned = false;
  for (const auto& d : rep.diagnostics)
    warned = warned || d.message.find("shape-tensor contents are left unknown") != std::string::npos;
  CHECK(warned);
  CHECK(type_of(m, "p3") == "INT64[1]");
  const std::string y = type_of(m, "Y");
  CHECK(y.rfind("FLOAT[", 0) == 0);
  CHECK(y.find("d0") == std::string::npos);  // not a product of the sizes: unknown
}

namespace {
// "s" + 3 -> "s3" (appending avoids GCC 12's false -Wrestrict on "literal" + std::string).
std::string nm(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
}  // namespace

TEST_CASE("DimExpr: tree sizes, and ExprTooLarge where growth would be unbounded") {
  SymbolTable syms;
  const DimExpr n = DimExpr::symbol(syms.named("N")), m = DimExpr::symbol(syms.named("M"));
  // one per term, per factor, per factor inside floor/min/max
  CHECK(DimExpr(7).tree_size() == 1);
  CHECK(n.tree_size() == 1);
  CHECK((n * n).tree_size() == 3);                        // one term, two factors
  CHECK((n + DimExpr(1)).tree_size() == 3);               // N (term + factor), 1 (term)
  CHECK(floor_div(n, DimExpr(2)).tree_size() == 3);       // term, floor atom, N inside
  CHECK(max(n, m).tree_size() == 4);                      // term, max atom, N, M
  CHECK((DimExpr(3) * n * m + floor_div(n + m, DimExpr(4))).tree_size() == 3 + 2 + (n + m).tree_size());

  // Squaring N over and over doubles the factor list: refused once past kMaxExprSize.
  DimExpr p = n;
  int squarings = 0;
  CHECK_THROWS_AS(
      [&] {
        for (; squarings < 64; ++squarings) p = p * p;
      }(),
      ExprTooLarge);
  CHECK(squarings == 9);  // N^512 has 513 nodes; N^1024 would have 1025
  CHECK(p.tree_size() == 513);

  // A floor nested in its own operands doubles as a tree (shared as a DAG): refused too.
  DimExpr e = n + m;
  CHECK_THROWS_AS(
      [&] {
        for (int i = 0; i < 64; ++i) {
          const DimExpr d = floor_div(e, DimExpr(3));
          e = (d + e) * d;
        }
      }(),
      ExprTooLarge);
  CHECK(e.tree_size() <= kMaxExprSize);

  // The product of two sums of 40 symbols (1,600 terms) is refused before it is expanded.
  DimExpr a, b;
  for (int i = 0; i < 40; ++i) {
    a = a + DimExpr::symbol(syms.named(nm("a", i)));
    b = b + DimExpr::symbol(syms.named(nm("b", i)));
  }
  CHECK(a.tree_size() == 80);
  CHECK_THROWS_AS((void)(a * b), ExprTooLarge);
  CHECK((a * DimExpr(2)).tree_size() == 80);
  // ... and so is a min of operands that are too large together.
  DimExpr big = a;
  for (int i = 0; i < 2; ++i) big = big + big * DimExpr::symbol(syms.named(nm("c", i)));
  for (int i = 0; i < 10; ++i) big = big + DimExpr::symbol(syms.named(nm("e", i)));
  CHECK(big.tree_size() == 80 + 120 + 280 + 20);  // a, a*c0, (a + a*c0)*c1, the e_i
  CHECK_THROWS_AS((void)min(big, big + DimExpr::symbol(syms.named("z"))), ExprTooLarge);
}

TEST_CASE("Hostile size arithmetic in shape tensors stays bounded: contents dropped, shapes kept") {
  // Shape(X) squared 40 times (N^(2^40)), the floor-in-its-own-operands chain, and the product
  // of (d_i + 1) over 24 symbolic dims (2^24 terms) each take microseconds, not gigabytes.
  auto squares = [] {
    std::vector<Node> nodes{Node("Shape", {"X"}, {"s0"})};
    for (int i = 0; i < 40; ++i)
      nodes.emplace_back("Mul", std::vector<std::string>{nm("s", i), nm("s", i)},
                         std::vector<std::string>{nm("s", i + 1)});
    nodes.emplace_back("ConstantOfShape", std::vector<std::string>{"s40"}, std::vector<std::string>{"Z"});
    return make_model(std::move(nodes), {{"X", DataType::FLOAT, {"N"}}});
  };
  auto floors = [] {
    std::vector<Node> nodes{Node("Shape", {"X"}, {"e0"})};
    for (int i = 0; i < 16; ++i) {
      nodes.emplace_back("Div", std::vector<std::string>{nm("e", i), "three"}, std::vector<std::string>{nm("d", i)});
      nodes.emplace_back("Add", std::vector<std::string>{nm("d", i), nm("e", i)}, std::vector<std::string>{nm("t", i)});
      nodes.emplace_back("Mul", std::vector<std::string>{nm("t", i), nm("d", i)}, std::vector<std::string>{nm("e", i + 1)});
    }
    nodes.emplace_back("ConstantOfShape", std::vector<std::string>{"e16"}, std::vector<std::string>{"Z"});
    return make_model(std::move(nodes), {{"X", DataType::FLOAT, {"N"}}}, {ints("three", {3})});
  };
  auto products = [] {
    std::vector<std::string> dims;
    for (int i = 0; i < 24; ++i) dims.push_back(nm("d", i));
    Model m = make_model({Node("Shape", {"X"}, {"s"}), Node("Add", {"s", "one"}, {"s1"}),
                          Node("ReduceProd", {"s1"}, {"p"}), Node("ConstantOfShape", {"p"}, {"Z"})},
                         {{"X", DataType::FLOAT, dims}}, {ints("one", {1})});
    m.graph.nodes[2].attributes.emplace_back("keepdims", std::int64_t{1});
    return m;
  };
  for (auto make : {+squares, +floors, +products}) {
    Model m = make();
    InferReport rep;
    CHECK_NOTHROW(rep = oxir::infer_shapes(m));
    const std::string z = type_of(m, "Z");
    // One dim (the shape tensor has one element), a fresh symbol rather than an expression.
    CHECK(z.rfind("FLOAT[unk__", 0) == 0);
    CHECK(z.find_first_of("*+(,") == std::string::npos);
    CHECK(rep.nodes_failed == 0);
  }
  // Strict mode: sizes beyond tracking are not a fault of the model.
  Model m = products();
  InferOptions strict;
  strict.strict = true;
  CHECK_NOTHROW((void)oxir::infer_shapes(m, strict));
  // ReduceProd keeps its output shape ([1], keepdims) while its contents are dropped.
  CHECK(type_of(m, "p") == "INT64[1]");
}

TEST_CASE("DimExpr: exact division by a divisor of several terms") {
  const auto N = DimExpr::symbol(13), M = DimExpr::symbol(12), H = DimExpr::symbol(7), W = DimExpr::symbol(22);
  // A window count (H - floor(H/3)) * (W - floor(W/3)) dividing N times itself.
  const DimExpr wh = H - floor_div(H, 3), ww = W - floor_div(W, 3);
  const DimExpr windows = wh * ww;
  REQUIRE(windows.terms().size() == 4);
  CHECK(exact_div(N * windows, windows) == N);
  CHECK(exact_div(N * windows, wh) == N * ww);
  CHECK(exact_div((N + 1) * (M + 2), M + 2) == N + 1);
  CHECK(exact_div(N * N - 1, N - 1) == N + 1);
  CHECK(exact_div(3 * N * (M - 1) + 6 * (M - 1), M - 1) == 3 * N + 6);
  // Not divisible: no quotient claimed.
  CHECK_FALSE(exact_div(N * N + 1, N + 1).has_value());
  CHECK_FALSE(exact_div(N * M + 1, M + 1).has_value());
  CHECK_FALSE(exact_div(N, N + 1).has_value());
  CHECK_FALSE(exact_div(DimExpr(6), N + 1).has_value());
  // floor division by such a divisor uses it too.
  CHECK(floor_div(N * windows, windows) == N);
  // Whatever the quotient, it multiplies back (checked at sample points, symbols as sizes).
  const std::vector<std::pair<DimExpr, DimExpr>> cases = {
      {N * windows + windows, windows}, {(N + M) * (H - 1) * (H + 1), H * H - 1}, {(2 * N + 3) * (W + M), W + M}};
  for (const auto& [a, b] : cases) {
    auto q = exact_div(a, b);
    REQUIRE(q.has_value());
    CHECK(*q * b == a);
  }
}

TEST_CASE("Sizes: remainders are non-negative, so a padded size bounds the size it pads") {
  using oxir::infer::ops::nonneg;
  using oxir::infer::ops::provably_le;
  const auto H = DimExpr::symbol(7), W = DimExpr::symbol(22);
  CHECK(nonneg(mod(H, 7)));
  CHECK(nonneg(mod(DimExpr(7) - mod(H, 7), 7)));           // torch's window padding
  CHECK(nonneg(mod(floor_div(H, 4) + W, 3)));
  CHECK_FALSE(nonneg(H - 8 * floor_div(H, 7)));            // 8*floor(H/7) can exceed H
  CHECK_FALSE(nonneg(H - 7 * floor_div(H + 1, 7)));        // H = 6: 6 - 7 < 0
  CHECK_FALSE(nonneg(H - W));
  const DimExpr padded = H + mod(DimExpr(7) - mod(H, 7), 7);  // H rounded up to a multiple of 7
  CHECK(provably_le(H, padded) == true);
  CHECK_FALSE(provably_le(padded, H).has_value());
  CHECK(ops::min_of(H, padded) == H);
  CHECK(ops::max_of(padded, H) == padded);
  // Spot check of the claims at sample sizes.
  for (std::int64_t h = 0; h <= 30; ++h) {
    auto v = [&](const DimExpr& e) { return *e.evaluate([&](std::int64_t) -> std::optional<std::int64_t> { return h; }); };
    CHECK(v(mod(DimExpr(7) - mod(H, 7), 7)) >= 0);
    CHECK(v(padded) >= h);
    CHECK(v(padded) == (h + 6) / 7 * 7);
  }
}

TEST_CASE("DimExpr: the sums of min/max pairs that rolls produce simplify for every value") {
  const auto P = DimExpr::symbol(3), M = DimExpr::symbol(12);
  CHECK(min(P, DimExpr(3)) + max(DimExpr(0), P - 3) == P);
  CHECK(max(DimExpr(0), 3 - P) + min(P, DimExpr(3)) == DimExpr(3));
  CHECK(min(P, M) + max(P, M) == P + M);
  CHECK(2 * min(P, M) + 2 * max(DimExpr(0), M - P) + 1 == 2 * M + 1);
  // Different coefficients or operands: left alone.
  CHECK(str(min(P, DimExpr(3)) + 2 * max(DimExpr(0), P - 3)) == "min(D,3)+2*max(0,D-3)");
  CHECK(str(min(P, DimExpr(3)) + max(DimExpr(0), P - 4)) == "min(D,3)+max(0,D-4)");
  // The identities hold at every value, negative ones included.
  for (std::int64_t p = -6; p <= 9; ++p)
    for (std::int64_t k = -3; k <= 5; ++k) {
      const std::int64_t a = std::min(p, k) + std::max<std::int64_t>(0, p - k);
      const std::int64_t b = std::min(p, k) + std::max<std::int64_t>(0, k - p);
      CHECK(a == p);
      CHECK(b == k);
    }
}

TEST_CASE("torch.roll (Concat of x[-k:] and x[:-k]) keeps the size it rolls") {
  // Slice(X, -3, INT64_MAX) ++ Slice(X, 0, -3) along axis 1, then Slice [:H] of the result.
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  Model m = make_model({Node("Slice", {"X", "s1", "e1", "ax"}, {"tail"}), Node("Slice", {"X", "s2", "e2", "ax"}, {"head"}),
                        Node("Concat", {"tail", "head"}, {"rolled"}), Node("Shape", {"X"}, {"shp"}),
                        Node("Gather", {"shp", "ax"}, {"h"}), Node("Slice", {"rolled", "zero", "h", "ax"}, {"Y"})},
                       {{"X", DataType::FLOAT, {"N", "H", "8"}}},
                       {ints("s1", {-3}), ints("e1", {big}), ints("s2", {0}), ints("e2", {-3}), ints("ax", {1}),
                        ints("zero", {0})});
  m.graph.nodes[2].attributes.emplace_back("axis", std::int64_t{1});
  (void)oxir::infer_shapes(m);
  CHECK(type_of(m, "tail") == "FLOAT[N,min(H,3),8]");
  CHECK(type_of(m, "head") == "FLOAT[N,max(0,H-3),8]");
  CHECK(type_of(m, "rolled") == "FLOAT[N,H,8]");
  CHECK(type_of(m, "Y") == "FLOAT[N,H,8]");
}

TEST_CASE("Sizes: a max with one non-negative operand is non-negative, so it never equals -1") {
  using oxir::infer::ops::nonneg;
  const auto P = DimExpr::symbol(3), Q = DimExpr::symbol(4);
  CHECK(nonneg(max(DimExpr(0), P - 7)));
  CHECK(nonneg(max(P - 7, Q)));
  CHECK_FALSE(nonneg(max(P - 7, Q - 1)));
  CHECK_FALSE(nonneg(min(DimExpr(0), P - 7)));
  // torch's expand(-1, ...) target: Where(Equal(shape, -1), 1, shape) on max(0, P-7) sizes.
  Model m = make_model({Node("Shape", {"X"}, {"s"}), Node("Slice", {"s", "st", "en"}, {"s0"}),
                        Node("Sub", {"s0", "seven"}, {"d"}), Node("Max", {"d", "zero"}, {"m"}),
                        Node("Equal", {"m", "neg"}, {"eq"}), Node("Where", {"eq", "one", "m"}, {"t"}),
                        Node("ConstantOfShape", {"t"}, {"Y"})},
                       {{"X", DataType::FLOAT, {"P", "Q"}}},
                       {ints("st", {0}), ints("en", {1}), ints("seven", {7}), ints("zero", {0}), ints("neg", {-1}),
                        ints("one", {1})});
  (void)oxir::infer_shapes(m);
  CHECK(type_of(m, "Y") == "FLOAT[max(0,P-7)]");
}

TEST_CASE("Sizes: ceilings written as h - floor(...) are non-negative; a bound that fails is not claimed") {
  using oxir::infer::ops::nonneg;
  const auto H = DimExpr::symbol(7);
  const DimExpr c2 = H - floor_div(H, 2);                         // ceil(H/2)
  const DimExpr c4 = c2 - floor_div(c2, 2);                       // ceil(ceil(H/2)/2)
  CHECK(nonneg(c2));
  CHECK(nonneg(c4));
  CHECK(nonneg(2 * H - 3 * floor_div(H, 2)));                     // 2H - 3*floor(H/2) >= H/2
  CHECK_FALSE(nonneg(H - 3 * floor_div(H, 2)));                   // H = 2: 2 - 3 < 0
  CHECK_FALSE(nonneg(H - floor_div(3 * H, 2)));                   // H = 2: 2 - 3 < 0
  // Swin's stage-3 window padding: the unpadded size is at most the padded one.
  const DimExpr padded = c4 + mod(DimExpr(7) - mod(c4, 7), 7);
  CHECK(oxir::infer::ops::provably_le(c4, padded) == true);
  for (std::int64_t h = 0; h <= 40; ++h) {
    auto v = [&](const DimExpr& e) { return *e.evaluate([&](std::int64_t) -> std::optional<std::int64_t> { return h; }); };
    CHECK(v(c2) == (h + 1) / 2);
    CHECK(v(c4) == ((h + 1) / 2 + 1) / 2);
    CHECK(v(padded) == (v(c4) + 6) / 7 * 7);
  }
}

TEST_CASE("DimExpr: min/max of many operands stays correct (the pairwise dominance check is only for few)") {
  SymbolTable syms;
  std::vector<DimExpr> s;
  for (int i = 0; i < 40; ++i) s.push_back(DimExpr::symbol(syms.named(nm("n", i))));
  // Few operands: dominated ones are dropped.
  CHECK(min(min(s[0], s[0] + 1), s[1]) == min(s[0], s[1]));
  CHECK(max(max(s[0], s[0] + 1), s[1]) == max(s[0] + 1, s[1]));
  // Many: every operand kept, and the value is still the minimum (min(n0..n39, n0+1) = min(n0..n39)
  // by value even if n0+1 is kept as an operand).
  DimExpr m = s[0] + 1;
  for (const auto& x : s) m = min(m, x);
  for (int trial = 0; trial < 5; ++trial) {
    auto value = [&](std::int64_t id) -> std::optional<std::int64_t> { return (id * 7 + trial * 13) % 23; };
    std::int64_t expect = *value(0) + 1;
    for (std::int64_t id = 0; id < 40; ++id) expect = std::min(expect, *value(id));
    CHECK(m.evaluate(value) == expect);
  }
  // The engine: Min over 40 shape values (tests/fuzz/regressions/min_of_900_shapes.onnx has 900,
  // which took 80 s before the bound).
  std::vector<Node> nodes;
  std::vector<In> inputs;
  std::vector<std::string> shapes;
  for (int i = 0; i < 40; ++i) {
    inputs.push_back({nm("X", i), DataType::FLOAT, {nm("n", i)}});
    nodes.emplace_back("Shape", std::vector<std::string>{nm("X", i)}, std::vector<std::string>{nm("s", i)});
    shapes.push_back(nm("s", i));
  }
  nodes.emplace_back("Min", shapes, std::vector<std::string>{"m"});
  nodes.emplace_back("ConstantOfShape", std::vector<std::string>{"m"}, std::vector<std::string>{"Y"});
  Model model = make_model(std::move(nodes), inputs);
  (void)oxir::infer_shapes(model);
  const std::string y = type_of(model, "Y");
  CHECK(y.rfind("FLOAT[min(", 0) == 0);
  for (int i = 0; i < 40; ++i) CHECK(y.find(nm("n", i) + (i == 39 ? ")" : ",")) != std::string::npos);
}

}  // namespace oxir_unit_test_infer_core
