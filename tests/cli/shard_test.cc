// verify --threads and --shard, and merge: the report does not depend on the
// thread count, and N shards merged equal one run byte for byte (text and
// JSON), disagreements included; bad shard sets are refused.
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <filesystem>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "io/hash.h"
#include "verify/verify.h"
#include "temp_path.h"

using namespace softhat;

namespace {
std::string temp(const std::string& name) {
  return softhat::test::temp_path("shard-" + name).string();
}
}  // namespace

TEST_CASE("verify: threads change nothing, four merged shards equal one run byte for byte", "[cli][shard]") {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--beta", "2"}}) {  // agreeing, and disagreeing
    std::vector<std::string> base = {"verify", "a-since-b", "majority", "khop-1", "parity", "--lengths", "40,90",
                                     "--samples", "20"};
    base.insert(base.end(), extra.begin(), extra.end());
    auto with = [&](std::vector<std::string> more) {
      std::vector<std::string> a = base;
      a.insert(a.end(), more.begin(), more.end());
      return test::run_cli(a);
    };
    const auto one = with({"--threads", "1", "--json", temp("one.json")});
    const auto three = with({"--threads", "3", "--json", temp("three.json")});
    CHECK(one.status == three.status);
    CHECK(one.out == three.out);
    CHECK(io::read_file(temp("one.json")) == io::read_file(temp("three.json")));
    std::vector<std::string> merge = {"merge"};
    for (int k = 3; k >= 0; --k) {  // any order
      const std::string f = temp(std::to_string(k) + ".json");
      const auto part = with({"--shard", std::to_string(k) + "/4", "--threads", "2", "--json", f});
      CHECK((part.status == 0 || part.status == 1));
      merge.push_back(f);
    }
    merge.push_back("--json");
    merge.push_back(temp("merged.json"));
    const auto merged = test::run_cli(merge);
    CHECK(merged.status == one.status);
    CHECK(merged.out == one.out);
    CHECK(io::read_file(temp("merged.json")) == io::read_file(temp("one.json")));
  }
  const auto missing = test::run_cli({"merge", temp("0.json"), temp("1.json")});
  CHECK(missing.status == 2);
  CHECK(missing.err == "softhat: merge: shard 2/4 is missing\n");
  const auto twice = test::run_cli({"merge", temp("0.json"), temp("0.json"), temp("2.json"), temp("3.json")});
  CHECK(twice.err == "softhat: merge: " + temp("0.json") + ": shard 0/4 given twice\n");
  CHECK(test::run_cli({"verify", "a-since-b", "--shard", "4/4"}).err ==
        "softhat: bad shard '4/4' (expected K/N with 0 <= K < N, e.g. 0/4)\n");
  CHECK(test::run_cli({"verify", "a-since-b", "--shard", "1/0"}).status == 2);
  CHECK(test::run_cli({"verify", "a-since-b", "--shard", "-1/3"}).status == 2);
  for (const char* f : {"one.json", "three.json", "0.json", "1.json", "2.json", "3.json", "merged.json"}) {
    std::filesystem::remove(temp(f));
  }
}

TEST_CASE("merge refuses a shard with any field edited, and shards of another run", "[cli][shard]") {
  const std::vector<std::string> base = {"verify", "a-since-b", "--exhaustive", "5", "--lengths", "20,30"};
  auto shard = [&](int k, std::vector<std::string> more, const std::string& file) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    a.insert(a.end(), {"--shard", std::to_string(k) + "/2", "--json", file});
    const auto r = test::run_cli(a);
    INFO(r.err);
    REQUIRE(r.status == 0);
  };
  shard(0, {"--per-length", "10"}, temp("e0.json"));
  shard(1, {"--per-length", "10"}, temp("e1.json"));
  REQUIRE(test::run_cli({"merge", temp("e0.json"), temp("e1.json")}).status == 0);
  const nlohmann::json good = nlohmann::json::parse(io::read_file(temp("e1.json")));
  // Every edit of shard 1, each on its own: refused with exit 2, naming the file.
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> edits = {
      {"seed", [](nlohmann::json& j) { j["seed"] = 7; }},
      {"pe", [](nlohmann::json& j) { j["pe"] = "unbounded"; }},
      {"mode", [](nlohmann::json& j) { j["mode"] = "hard"; }},
      {"precision", [](nlohmann::json& j) { j["precision"] = "float"; }},
      {"model", [](nlohmann::json& j) { j["model"] = "other.safetensors"; }},
      {"max_len", [](nlohmann::json& j) { j["run"]["max_len"] = 6; }},
      {"lengths", [](nlohmann::json& j) { j["run"]["lengths"] = {20, 40}; }},
      {"samples", [](nlohmann::json& j) { j["run"]["samples"] = 11; }},
      {"beta", [](nlohmann::json& j) { j["run"]["beta"] = "2"; }},
      {"languages", [](nlohmann::json& j) { j["run"]["languages"][0] = "no-aa"; }},
      {"run_id", [](nlohmann::json& j) { j["run_id"] = std::string(64, '0'); }},
      {"shard label", [](nlohmann::json& j) { j["shard"] = "0/2"; }},
      {"agreed (101%)", [](nlohmann::json& j) { j["languages"][0]["rows"][1]["agreed"] = j["languages"][0]["rows"][1]["words"].get<int>() + 1; }},
      {"words", [](nlohmann::json& j) { j["languages"][0]["words"] = 1; }},
      {"a margin", [](nlohmann::json& j) { j["languages"][0]["rows"][0]["min_target_mass"] = 0.5; }},
      {"the language", [](nlohmann::json& j) { j["languages"][0]["language"] = "no-aa"; }},
      {"the checksum", [](nlohmann::json& j) { j["checksum"] = std::string(64, 'a'); }},
      {"no checksum", [](nlohmann::json& j) { j.erase("checksum"); }},
  };
  for (const auto& [what, edit] : edits) {
    nlohmann::json j = good;
    edit(j);
    io::write_file_atomically(temp("edited.json"), j.dump(2));
    const auto r = test::run_cli({"merge", temp("e0.json"), temp("edited.json")});
    INFO(what << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(temp("edited.json")) != std::string::npos);
  }
  // A shard of another run (whole and unedited): refused, naming what differs.
  shard(1, {"--per-length", "10", "--seed", "5"}, temp("other1.json"));
  const auto other = test::run_cli({"merge", temp("e0.json"), temp("other1.json")});
  CHECK(other.status == 2);
  CHECK(other.err == "softhat: merge: " + temp("other1.json") + " is another run than " + temp("e0.json") +
                         ": its seed differs\n");
  shard(1, {"--per-length", "12"}, temp("other1.json"));
  CHECK(test::run_cli({"merge", temp("e0.json"), temp("other1.json")}).err.find("its samples differs") != std::string::npos);
  for (const char* f : {"e0.json", "e1.json", "edited.json", "other1.json"}) std::filesystem::remove(temp(f));
}

TEST_CASE("shard ranges tile every row exactly", "[shard]") {
  for (std::uint64_t count : {0ull, 1ull, 7ull, 2047ull, 1000003ull}) {
    for (std::uint64_t n : {1ull, 2ull, 3ull, 4ull, 10ull}) {
      std::uint64_t next = 0;
      for (std::uint64_t k = 0; k < n; ++k) {
        const auto [lo, hi] = shard_range(count, {k, n});
        CHECK(lo == next);
        CHECK(hi >= lo);
        next = hi;
      }
      CHECK(next == count);
    }
  }
}

TEST_CASE("generate: shards merged equal one run (stdout, and a folder with its manifest)", "[cli][shard]") {
  const std::vector<std::string> base = {"generate", "dyck-2",   "--split",    "train:4-10",   "--split", "test:12-16",
                                         "--per-length", "12", "--negatives", "border", "--format", "jsonl",
                                         "--allow-shortage"};  // no Dyck word has an odd length
  auto args = [&](std::vector<std::string> more) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const auto one = test::run_cli(base);
  REQUIRE(one.status == 0);
  const std::string dir = temp("corpus");
  std::filesystem::remove_all(dir);
  REQUIRE(test::run_cli(args({"--out", dir})).status == 0);
  const std::string single_train = io::read_file(dir + "/train.jsonl");
  const std::string single_manifest = io::read_file(dir + "/manifest.json");
  std::filesystem::remove_all(dir);
  std::vector<std::string> parts;
  for (int k = 0; k < 3; ++k) {
    parts.push_back(temp("corpus-" + std::to_string(k) + ".json"));
    REQUIRE(test::run_cli(args({"--out", parts.back(), "--shard", std::to_string(k) + "/3"})).status == 0);
  }
  const auto merged = test::run_cli({"merge", parts[2], parts[0], parts[1]});
  CHECK(merged.status == 0);
  CHECK(merged.out == one.out);
  CHECK(merged.err == one.err);
  CHECK(test::run_cli({"merge", parts[0], parts[1], parts[2], "--out", dir}).status == 0);
  CHECK(io::read_file(dir + "/train.jsonl") == single_train);
  CHECK(io::read_file(dir + "/manifest.json") == single_manifest);
  const auto missing = test::run_cli({"merge", parts[0], parts[2]});
  CHECK(missing.err == "softhat: merge: corpus shard 1/3 is missing\n");
  CHECK(test::run_cli(args({"--shard", "0/3"})).err == "softhat: --shard needs --out FILE (the shard's JSON file)\n");
  std::filesystem::remove_all(dir);
  for (const std::string& p : parts) std::filesystem::remove(p);
}

TEST_CASE("merge refuses a corpus shard with any field edited, and validates what a forger re-checksums", "[cli][shard]") {
  const std::vector<std::string> base = {"generate", "no-aa", "--split", "train:3-6", "--split", "test:8-9",
                                         "--per-length", "6", "--format", "jsonl"};
  auto shard = [&](int k, std::vector<std::string> more, const std::string& file) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    a.insert(a.end(), {"--shard", std::to_string(k) + "/2", "--out", file});
    REQUIRE(test::run_cli(a).status == 0);
  };
  shard(0, {}, temp("c0.json"));
  shard(1, {}, temp("c1.json"));
  REQUIRE(test::run_cli({"merge", temp("c0.json"), temp("c1.json")}).status == 0);
  const nlohmann::json good = nlohmann::json::parse(io::read_file(temp("c1.json")));
  REQUIRE(good.at("units").size() == 3);  // lengths 6, 8 and 9
  auto merge_with = [&](const nlohmann::json& j) {
    io::write_file_atomically(temp("cedit.json"), j.dump());
    return test::run_cli({"merge", temp("c0.json"), temp("cedit.json")});
  };
  using Edit = std::function<void(nlohmann::json&)>;
  // Content edits: the checksum refuses each; re-checksummed, validation or
  // the unit check does.
  const std::vector<std::pair<std::string, Edit>> content = {
      {"a missing length", [](nlohmann::json& j) { j["units"].erase(1); }},
      {"a length twice", [](nlohmann::json& j) { j["units"].push_back(j["units"][0]); }},
      {"a length of the other shard", [](nlohmann::json& j) { j["units"][0]["length"] = 3; }},
      {"a flipped label", [](nlohmann::json& j) { j["units"][1]["splits"][1][0][1] = false; }},
      {"a word outside the alphabet", [](nlohmann::json& j) { j["units"][1]["splits"][1][0][0] = "abbbcbbb"; }},
      {"an injected tab", [](nlohmann::json& j) { j["units"][1]["splits"][1][0][0] = "abbb\tbbb"; }},
      {"an injected newline", [](nlohmann::json& j) { j["units"][1]["splits"][1][0][0] = "abbb\nbbb"; }},
      {"a word of another length", [](nlohmann::json& j) { j["units"][1]["splits"][1][0][0] = "abbbabb"; }},
      {"a word dropped", [](nlohmann::json& j) { j["units"][1]["splits"][1].erase(0); }},
      {"a word duplicated", [](nlohmann::json& j) { j["units"][1]["splits"][1][1] = j["units"][1]["splits"][1][0]; }},
      {"a split dropped", [](nlohmann::json& j) { j["units"][1]["splits"].erase(1); }},
      {"a shortage invented", [](nlohmann::json& j) {
         j["units"][1]["shortages"].push_back({"test", 8, "positive", 3, 2, "2"});
       }},
  };
  for (const auto& [what, edit] : content) {
    nlohmann::json j = good;
    edit(j);
    const auto edited = merge_with(j);
    INFO(what << ": " << edited.err);
    CHECK(edited.status == 2);
    CHECK(edited.err.find(temp("cedit.json") + ": the checksum does not match") != std::string::npos);
    j["checksum"] = io::json_checksum(j, {"checksum"});  // a forger who knows the rule
    const auto forged = merge_with(j);
    INFO("re-checksummed: " << forged.err);
    CHECK(forged.status == 2);
    CHECK(forged.out.empty());
    CHECK((forged.err.find("not valid") != std::string::npos || forged.err.find(temp("cedit.json")) != std::string::npos));
  }
  // Run edits: each is refused (checksum; re-checksummed, run_id; with the
  // run_id recomputed too, the run keys differ from the first shard's).
  const std::vector<std::pair<std::string, Edit>> run = {
      {"language", [](nlohmann::json& j) { j["language"] = "no-bb"; }},
      {"alphabet", [](nlohmann::json& j) { j["alphabet"] = "abc"; }},
      {"formula", [](nlohmann::json& j) { j["formula"] = "a"; }},
      {"source", [](nlohmann::json& j) { j["source"]["name"] = "a-since-b"; }},
      {"allow_shortage", [](nlohmann::json& j) { j["allow_shortage"] = true; }},
      {"command_args", [](nlohmann::json& j) { j["command_args"].push_back("--seed"); }},
      {"sampler", [](nlohmann::json& j) { j["sampler"] = "rejection"; }},
      {"seed", [](nlohmann::json& j) { j["options"]["seed"] = 7; }},
      {"per_length", [](nlohmann::json& j) { j["options"]["per_length"] = 8; }},
      {"split lengths", [](nlohmann::json& j) { j["options"]["splits"][1]["lengths"] = "8-10"; }},
      {"softhat_version", [](nlohmann::json& j) { j["softhat_version"] = "9.9.9"; }},
      {"shard label", [](nlohmann::json& j) { j["corpus_shard"] = "1/3"; }},
      {"run_id", [](nlohmann::json& j) { j["run_id"] = std::string(64, '0'); }},
      {"the checksum", [](nlohmann::json& j) { j["checksum"] = std::string(64, 'a'); }},
      {"no checksum", [](nlohmann::json& j) { j.erase("checksum"); }},
  };
  for (const auto& [what, edit] : run) {
    nlohmann::json j = good;
    edit(j);
    const auto edited = merge_with(j);
    INFO(what << ": " << edited.err);
    CHECK(edited.status == 2);
    CHECK(edited.err.find(temp("cedit.json")) != std::string::npos);
  }
  // A whole, unedited shard of another run: refused, naming what differs.
  shard(1, {"--seed", "5"}, temp("cother.json"));
  const auto other = test::run_cli({"merge", temp("c0.json"), temp("cother.json")});
  CHECK(other.status == 2);
  CHECK(other.err == "softhat: merge: " + temp("cother.json") + " comes from another run than " + temp("c0.json") +
                         ": its command_args differs\n");
  // A shard count no run has: refused without allocating for it.
  nlohmann::json huge = good;
  huge["corpus_shard"] = "1/1000000000000000000";
  CHECK(merge_with(huge).status == 2);
  for (const char* f : {"c0.json", "c1.json", "cedit.json", "cother.json"}) std::filesystem::remove(temp(f));
}
