#pragma once
// The element-type test vectors of tests/data/dtypes (CSV with CRLF line ends), read whole and
// addressed by column name; shared by test_float_types.cpp and test_int_types.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace oxir_test {

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  [[nodiscard]] std::size_t col(const std::string& name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE_MESSAGE(it != header.end(), "no column " << name);
    return static_cast<std::size_t>(it - header.begin());
  }
};

inline std::vector<std::string> split_csv_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

/// tests/data/dtypes/<name>; every row padded to the header's width.
inline Csv read_dtype_csv(const std::string& name) {
  std::string path = OXIR_TEST_DATA_DIR;  // appended, not `+`: GCC 12 at -O1 warns falsely (PR 105651)
  path += "/dtypes/";
  path += name;
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  Csv csv;
  std::string line;
  std::getline(in, line);
  csv.header = split_csv_line(line);
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    csv.rows.push_back(split_csv_line(line));
    csv.rows.back().resize(csv.header.size());
  }
  return csv;
}

inline std::uint32_t hex(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16)); }

}  // namespace oxir_test
