// softhat's version (kept equal to the CMake project version), printed by
// --version and recorded in corpus manifests.
#pragma once

namespace softhat {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace softhat
