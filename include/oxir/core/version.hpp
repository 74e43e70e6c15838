#pragma once
// The library version, the only macros oxir's public API defines.

#define OXIR_VERSION_MAJOR 0
#define OXIR_VERSION_MINOR 1
#define OXIR_VERSION_PATCH 0

namespace oxir {
/// Library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
/// Newest IR version oxir writes and knows every field of.
inline constexpr long long ir_version_latest = 13;
}  // namespace oxir
