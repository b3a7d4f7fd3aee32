// The model file: safetensors (an 8-byte little-endian header length, a JSON
// header, then raw little-endian row-major tensor data), written and read by
// our own code: the format is small enough to own, and no C++ safetensors
// library is packaged for Debian. The JSON header is handled by nlohmann-json.
//
// Tensor names follow the PyTorch convention (model/transformer.h); the
// header's "__metadata__" holds {"format": "pt", "softhat.format_version":
// "2", "softhat.config": <the configuration as a JSON string>}. The
// configuration's alphabet and transducer symbols are UTF-8, one code point
// per symbol; reading declares them (util/symbols.h). Version 1 files (ASCII
// alphabets, one byte per symbol) are still read.
//
// Reading refuses, with a message naming the problem and never crashing: a
// truncated file, a header that lies about sizes or offsets, unknown dtypes,
// missing or unexpected tensors, shapes that disagree with the configuration,
// NaN or infinite weights, and a newer format version.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "model/transformer.h"

namespace softhat::io {

// The bytes of a model file (tensors as F64).
std::string model_to_safetensors(const model::Transformer& model);
// Parses the bytes of a model file; `name` labels errors. Throws InputError.
model::Transformer model_from_safetensors(std::string_view bytes, const std::string& name);

// Whole-or-nothing: writes a temporary file beside `path`, then renames it.
void save_model(const model::Transformer& model, const std::string& path);
model::Transformer load_model(const std::string& path);

nlohmann::ordered_json config_to_json(const model::ModelConfig& config);
// A float32 claim's numbers (the configuration's "float32" block, and a
// verify --mlregtest-splits row's check).
nlohmann::ordered_json float32_claim_json(const model::Float32Claim& claim);
model::ModelConfig config_from_json(const nlohmann::json& json);

}  // namespace softhat::io
