#include "io/model_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "io/file_util.h"
#include "io/json_number.h"
#include "util/error.h"
#include "util/read_file.h"
#include "util/symbols.h"

namespace softhat::io {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr std::uint64_t kMaxHeader = 100'000'000;  // the reference reader's limit

void put_le64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint64_t get_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_string(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

}  // namespace

ordered_json float32_claim_json(const model::Float32Claim& f) {
  return {{"max_length", f.max_length}, {"words", f.words}, {"min_margin", f.min_margin},
          {"max_deviation", f.max_deviation}, {"max_state_deviation", f.max_state_deviation}, {"safety", f.safety}};
}

ordered_json config_to_json(const model::ModelConfig& c) {
  ordered_json j;
  j["format_version"] = c.format_version;
  j["alphabet"] = sym::encode(c.alphabet);  // UTF-8, one code point per symbol (version 2)
  j["d_model"] = c.d_model;
  j["residual_labels"] = c.residual_labels;
  j["position_features"] = ordered_json::array();
  for (const model::PositionFeature& f : c.position_features) j["position_features"].push_back(f.name());
  j["beta"] = {{"c", c.beta.c}, {"a", c.beta.a}, {"b", c.beta.b}};
  j["readout"] = {{"coordinate", c.readout.coordinate}, {"threshold", c.readout.threshold}};
  if (c.transducer) {
    auto& t = j["transducer"];
    t["coordinates"] = c.transducer->coordinates;
    if (c.transducer->strings.empty()) {
      t["symbols"] = sym::encode(c.transducer->symbols);
    } else {
      t["strings"] = ordered_json::array();
      for (const std::string& s : c.transducer->strings) t["strings"].push_back(sym::encode(s));
    }
    t["default"] = sym::encode(c.transducer->default_symbol);
    t["threshold"] = c.transducer->threshold;
  }
  if (c.program) {
    ordered_json flags = ordered_json::array();
    for (const auto& f : c.program->range_flags) flags.push_back({{"coordinate", f.coordinate}, {"what", f.what}});
    j["program"] = {{"pad", c.program->pad}, {"pad_symbol", sym::encode(c.program->pad_symbol)}, {"range_flags", flags}};
  }
  if (c.float32) j["float32"] = float32_claim_json(*c.float32);
  j["layers"] = ordered_json::array();
  for (const model::LayerConfig& l : c.layers) {
    ordered_json layer;
    layer["label"] = l.label;
    layer["ffn_hidden"] = l.ffn_hidden;
    layer["heads"] = ordered_json::array();
    for (const model::HeadConfig& h : l.heads) {
      layer["heads"].push_back({{"d_head", h.d_head},
                                {"d_value", h.d_value},
                                {"mask", model::mask_name(h.mask)},
                                {"hard", model::hard_kind_name(h.hard)},
                                {"label", h.label}});
    }
    j["layers"].push_back(std::move(layer));
  }
  j["notes"] = c.notes;
  return j;
}

namespace {
std::int64_t integer(const json& v, std::int64_t lo, std::int64_t hi, const std::string& what) {
  return json_integer(v, lo, hi, what);
}
int small_int(const json& v, const std::string& what) {
  return static_cast<int>(integer(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), what));
}

// JSON with every object's keys distinct (nlohmann keeps the last of a
// repeated key silently; a model file that says two things is refused).
json parse_unique_keys(std::string_view text, const std::string& what) {
  std::vector<std::set<std::string>> open;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == json::parse_event_t::key && !open.empty() && !open.back().insert(parsed.get<std::string>()).second) {
      throw InputError(fmt::format("{}: the key \"{}\" appears twice in one object", what, parsed.get<std::string>()));
    }
    return true;
  };
  return json::parse(text, check);
}

// Symbols stored in the configuration as text: UTF-8 with one code point per
// symbol (version 2, declared as symbols here), or ASCII with one byte per
// symbol (version 1, which could hold nothing else).
std::string symbols(const json& v, int version, const std::string& what) {
  if (!v.is_string()) throw InputError(fmt::format("model configuration: {} must be a string, found {}", what, v.dump()));
  const std::string text = v.get<std::string>();
  // No control characters: a symbol is printed inside TSV and JSONL records.
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      throw InputError(fmt::format("model configuration: {} has the control character 0x{:02x} at {}", what, c, i));
    }
  }
  if (version == 1) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (static_cast<unsigned char>(text[i]) >= 0x80) {
        throw InputError(fmt::format("model configuration: {} has a non-ASCII byte at {}, which format version 1 "
                                     "cannot hold",
                                     what, i));
      }
    }
    return text;
  }
  try {
    return sym::declare(text);
  } catch (const InputError& e) {
    throw InputError(fmt::format("model configuration: {}: {}", what, e.what()));
  }
}
}  // namespace

model::ModelConfig config_from_json(const json& j) {
  model::ModelConfig c;
  try {
    c.format_version = small_int(j.at("format_version"), "format_version");
    if (c.format_version > model::kFormatVersion) {
      throw InputError(fmt::format("the file's format version {} is newer than this softhat reads ({}); "
                                   "upgrade softhat",
                                   c.format_version, model::kFormatVersion));
    }
    c.alphabet = symbols(j.at("alphabet"), c.format_version, "the alphabet");
    c.d_model = small_int(j.at("d_model"), "d_model");
    c.residual_labels = j.at("residual_labels").get<std::vector<std::string>>();
    for (const auto& f : j.at("position_features")) c.position_features.push_back(model::parse_position_feature(f.get<std::string>()));
    c.beta = {j.at("beta").at("c").get<double>(), j.at("beta").at("a").get<double>(),
              j.at("beta").at("b").get<double>()};
    c.readout = {small_int(j.at("readout").at("coordinate"), "readout coordinate"),
                 j.at("readout").at("threshold").get<double>()};
    if (j.contains("transducer")) {
      const json& t = j.at("transducer");
      model::TransducerReadout tr;
      for (const json& v : t.at("coordinates")) tr.coordinates.push_back(small_int(v, "transducer coordinate"));
      if (t.contains("strings")) {  // program models whose outputs are strings (docs/model-format.md)
        if (t.contains("symbols")) throw InputError("model configuration: the transducer has both symbols and strings");
        if (!t.at("strings").is_array()) throw InputError("model configuration: transducer strings must be an array");
        for (const json& v : t.at("strings")) tr.strings.push_back(symbols(v, c.format_version, "a transducer string"));
      } else {
        tr.symbols = symbols(t.at("symbols"), c.format_version, "the transducer symbols");
      }
      const std::string def = symbols(t.at("default"), c.format_version, "the transducer default");
      if (def.size() != 1) throw InputError("model configuration: transducer default must be one symbol");
      tr.default_symbol = def[0];
      tr.threshold = t.at("threshold").get<double>();
      c.transducer = std::move(tr);
    }
    if (j.contains("program")) {
      const json& p = j.at("program");
      model::ProgramIo io;
      for (const json& v : p.at("pad")) io.pad.push_back(json_integer(v, -(std::int64_t{1} << 40), std::int64_t{1} << 40, "a padding coefficient"));
      const std::string pad = symbols(p.at("pad_symbol"), c.format_version, "the pad symbol");
      if (pad.size() != 1) throw InputError("model configuration: the pad symbol must be one symbol");
      io.pad_symbol = pad[0];
      for (const json& f : p.at("range_flags")) {
        io.range_flags.push_back({small_int(f.at("coordinate"), "range flag coordinate"), f.at("what").get<std::string>()});
      }
      c.program = std::move(io);
    }
    if (j.contains("float32")) {
      const json& f = j.at("float32");
      model::Float32Claim claim;
      claim.max_length = static_cast<std::size_t>(json_integer(f.at("max_length"), 0, std::int64_t{1} << 40, "float32 max_length"));
      claim.words = static_cast<std::uint64_t>(json_integer(f.at("words"), 0, std::int64_t{1} << 60, "float32 words"));
      claim.min_margin = f.at("min_margin").get<double>();
      claim.max_deviation = f.at("max_deviation").get<double>();
      claim.max_state_deviation = f.at("max_state_deviation").get<double>();
      claim.safety = f.at("safety").get<double>();
      c.float32 = claim;
    }
    for (const auto& lj : j.at("layers")) {
      model::LayerConfig l;
      l.label = lj.value("label", "");
      l.ffn_hidden = small_int(lj.at("ffn_hidden"), "ffn_hidden");
      for (const auto& hj : lj.at("heads")) {
        model::HeadConfig h;
        h.d_head = small_int(hj.at("d_head"), "d_head");
        h.d_value = small_int(hj.at("d_value"), "d_value");
        h.mask = model::parse_mask(hj.at("mask").get<std::string>());
        h.hard = model::parse_hard_kind(hj.at("hard").get<std::string>());
        h.label = hj.value("label", "");
        l.heads.push_back(std::move(h));
      }
      c.layers.push_back(std::move(l));
    }
    if (j.contains("notes")) c.notes = j.at("notes").get<std::map<std::string, std::string>>();
    c.validate();
    c.format_version = model::kFormatVersion;  // read: now a current configuration (written back as version 2)
  } catch (const json::exception& e) {
    throw InputError(fmt::format("model configuration: {}", e.what()));
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("model configuration: {}", e.what()));
  }
  return c;
}

std::string model_to_safetensors(const model::Transformer& model) {
  // Tensors keep the visitor's order (all F64, so the reference writer's
  // "by dtype size, then name" order only needs the name sort below).
  struct Entry {
    std::string name;
    std::vector<std::int64_t> shape;
    const double* data;
    std::int64_t size;
  };
  std::vector<Entry> entries;
  model::for_each_tensor(model, [&](const model::TensorView<const double>& t) {
    entries.push_back({t.name, t.shape, t.data, t.size()});
  });
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  ordered_json header;
  header["__metadata__"] = {{"format", "pt"},
                            {"softhat.format_version", std::to_string(model.config.format_version)},
                            {"softhat.config", config_to_json(model.config).dump()}};
  std::uint64_t offset = 0;
  for (const Entry& e : entries) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(e.size) * 8;
    header[e.name] = {{"dtype", "F64"}, {"shape", e.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned
  std::string out;
  out.reserve(8 + text.size() + offset);
  put_le64(out, text.size());
  out += text;
  for (const Entry& e : entries) {
    for (std::int64_t k = 0; k < e.size; ++k) {
      std::uint64_t bits;
      std::memcpy(&bits, e.data + k, 8);
      put_le64(out, bits);
    }
  }
  return out;
}

namespace {

// An error in the file `name`: the message names it.
[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InputError(fmt::format("{}: {}", name, what));
}

// One tensor's header entry.
struct Stored {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin, end;
};

// The 8-byte header length and the JSON header after it.
json read_header(std::string_view bytes, const std::string& name, std::uint64_t& header_len) {
  if (bytes.size() < 8) {
    fail(name, fmt::format("not a model file: {} bytes, too short for the 8-byte header length", bytes.size()));
  }
  header_len = get_le64(reinterpret_cast<const unsigned char*>(bytes.data()));
  if (header_len > kMaxHeader) {
    fail(name, fmt::format("header length {} exceeds the limit of {}", header_len, kMaxHeader));
  }
  if (header_len > bytes.size() - 8) {
    fail(name, fmt::format("truncated: the header needs {} bytes but only {} follow", header_len, bytes.size() - 8));
  }
  const std::string_view header_text = bytes.substr(8, header_len);
  if (header_text.empty() || header_text[0] != '{') fail(name, "the header is not a JSON object");
  json header;
  try {
    header = parse_unique_keys(header_text, name + ": the header");
  } catch (const json::exception& e) {
    fail(name, fmt::format("the header is not valid JSON: {}", e.what()));
  }
  if (!header.is_object()) fail(name, "the header is not a JSON object");
  return header;
}

// The header's tensor entries by name; its __metadata__ goes to `metadata`.
std::map<std::string, Stored> read_entries(const json& header, const std::string& name, json& metadata) {
  std::map<std::string, Stored> stored;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      metadata = value;
      continue;
    }
    try {
      const json& offsets = value.at("data_offsets");
      if (!offsets.is_array() || offsets.size() != 2) {
        fail(name, fmt::format("tensor '{}': data_offsets must be [begin, end]", key));
      }
      const std::int64_t big = std::numeric_limits<std::int64_t>::max();
      Stored s{value.at("dtype").get<std::string>(), {},
               static_cast<std::uint64_t>(integer(offsets.at(0), 0, big, "tensor '" + key + "': data_offsets")),
               static_cast<std::uint64_t>(integer(offsets.at(1), 0, big, "tensor '" + key + "': data_offsets"))};
      for (const json& d : value.at("shape")) s.shape.push_back(integer(d, 0, big, "tensor '" + key + "': shape"));
      stored.emplace(key, std::move(s));
    } catch (const json::exception& e) {
      fail(name, fmt::format("tensor '{}': malformed header entry ({})", key, e.what()));
    } catch (const InputError& e) {
      if (std::string_view(e.what()).starts_with(name + ":")) throw;  // already names the file
      fail(name, e.what());
    }
  }
  return stored;
}

// Offsets must tile the buffer exactly, and sizes must match dtype x shape.
void check_layout(const std::map<std::string, Stored>& stored, std::uint64_t buffer_len, const std::string& name) {
  std::vector<std::pair<std::uint64_t, std::string>> order;
  for (const auto& [key, s] : stored) {
    std::uint64_t item = 0;
    if (s.dtype == "F64") item = 8;
    else if (s.dtype == "F32") item = 4;
    else fail(name, fmt::format("tensor '{}': unsupported dtype '{}' (softhat reads F64 and F32)", key, s.dtype));
    std::uint64_t count = 1;
    for (std::int64_t d : s.shape) {
      if (d < 0) fail(name, fmt::format("tensor '{}': negative dimension in shape {}", key, shape_string(s.shape)));
      if (d != 0 && count > UINT64_MAX / 8 / static_cast<std::uint64_t>(d)) {
        fail(name, fmt::format("tensor '{}': shape {} is too large", key, shape_string(s.shape)));
      }
      count *= static_cast<std::uint64_t>(d);
    }
    if (s.end < s.begin || s.end - s.begin != count * item) {
      fail(name, fmt::format("tensor '{}': data_offsets [{}, {}] do not hold {} {} values of shape {}", key, s.begin,
                             s.end, count, s.dtype, shape_string(s.shape)));
    }
    order.emplace_back(s.begin, key);
  }
  std::sort(order.begin(), order.end());
  std::uint64_t expected = 0;
  for (const auto& [begin, key] : order) {
    if (begin != expected) {
      fail(name, fmt::format("tensor '{}' starts at byte {} of the data, expected {} (gap or overlap)", key, begin,
                             expected));
    }
    expected = stored.at(key).end;
  }
  if (expected != buffer_len) {
    fail(name, fmt::format("the tensors cover {} bytes of data but the file holds {} (truncated or padded)", expected,
                           buffer_len));
  }
}

// The configuration in __metadata__, refused if its weights could not fit in
// the buffer (checked before they are allocated).
model::ModelConfig read_config(json& metadata, std::uint64_t buffer_len, const std::string& name) {
  if (!metadata.is_object() || !metadata.contains("softhat.config") || !metadata["softhat.config"].is_string()) {
    fail(name, "no softhat configuration in __metadata__ (not a softhat model file?)");
  }
  model::ModelConfig config;
  try {
    const json j = parse_unique_keys(metadata["softhat.config"].get<std::string>(), "model configuration");
    config = config_from_json(j);
    // The metadata's copy of the version (a string: safetensors metadata holds strings) says the same.
    if (metadata.contains("softhat.format_version") &&
        metadata["softhat.format_version"] != json(std::to_string(small_int(j.at("format_version"), "format_version")))) {
      throw InputError(fmt::format("__metadata__ softhat.format_version is {}, but the configuration's format_version "
                                   "is {}",
                                   metadata["softhat.format_version"].dump(), j.at("format_version").dump()));
    }
  } catch (const json::exception& e) {
    fail(name, fmt::format("the configuration is not valid JSON: {}", e.what()));
  } catch (const InputError& e) {
    fail(name, e.what());
  }
  const std::uint64_t parameters = model::Transformer::parameter_count(config);
  if (parameters > buffer_len / 4) {
    fail(name, fmt::format("the configuration describes {} weights, more than the {} bytes of data can hold",
                           parameters, buffer_len));
  }
  return config;
}

// Every tensor the configuration names, from its stored bytes (F64, or F32
// widened); a missing, misshapen, non-finite or unexpected tensor is an error.
void read_tensors(model::Transformer& model, const std::map<std::string, Stored>& stored,
                  const unsigned char* buffer, const std::string& name) {
  std::size_t used = 0;
  model::for_each_tensor(model, [&](const model::TensorView<double>& t) {
    auto it = stored.find(t.name);
    if (it == stored.end()) fail(name, fmt::format("missing tensor '{}'", t.name));
    const Stored& s = it->second;
    if (s.shape != t.shape) {
      fail(name, fmt::format("tensor '{}' has shape {}, the configuration says {}", t.name, shape_string(s.shape),
                             shape_string(t.shape)));
    }
    const unsigned char* p = buffer + s.begin;
    for (std::int64_t k = 0; k < t.size(); ++k) {
      double v;
      if (s.dtype == "F64") {
        const std::uint64_t bits = get_le64(p + 8 * k);
        std::memcpy(&v, &bits, 8);
      } else {
        std::uint32_t bits = 0;
        for (int b = 3; b >= 0; --b) bits = (bits << 8) | p[4 * k + b];
        float f;
        std::memcpy(&f, &bits, 4);
        v = f;
      }
      if (!std::isfinite(v)) {
        fail(name, fmt::format("tensor '{}' holds {} at element {}", t.name, std::isnan(v) ? "NaN" : "an infinity", k));
      }
      t.data[k] = v;
    }
    ++used;
  });
  if (used != stored.size()) {
    for (const auto& entry : stored) {
      const std::string& key = entry.first;
      bool known = false;
      model::for_each_tensor(model, [&](const model::TensorView<double>& t) { known = known || t.name == key; });
      if (!known) fail(name, fmt::format("unexpected tensor '{}'", key));
    }
  }
}

}  // namespace

model::Transformer model_from_safetensors(std::string_view bytes, const std::string& name) {
  std::uint64_t header_len = 0;
  const json header = read_header(bytes, name, header_len);
  const std::uint64_t buffer_len = bytes.size() - 8 - header_len;
  const unsigned char* buffer = reinterpret_cast<const unsigned char*>(bytes.data()) + 8 + header_len;
  json metadata;
  const std::map<std::string, Stored> stored = read_entries(header, name, metadata);
  check_layout(stored, buffer_len, name);
  const model::ModelConfig config = read_config(metadata, buffer_len, name);
  model::Transformer model = model::Transformer::zeros(config);
  read_tensors(model, stored, buffer, name);
  return model;
}

void save_model(const model::Transformer& model, const std::string& path) {
  write_file_atomically(path, model_to_safetensors(model));
}

model::Transformer load_model(const std::string& path) {
  // A model file is a regular file (never a FIFO or /dev/zero), read after its size is checked.
  return model_from_safetensors(util::read_file(path, {.max_bytes = util::kMaxInputFile * 16, .regular_only = true}), path);
}

}  // namespace softhat::io
