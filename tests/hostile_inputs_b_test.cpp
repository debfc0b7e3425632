// Hostile inputs, second round: YAML aliases that expand exponentially, text that is not UTF-8,
// gzip-compressed traces of every text format, pai2020 provenance, and policies that must never
// issue an action the runtime refuses.
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "sim/engine/utf8.h"
#include "tests/support/harness.h"
#include "workloads/formats/format_guess.h"
#include "workloads/formats/registry.h"
#include "workloads/trace_text.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <filesystem>
#include <string>

using namespace dlsim;
using namespace dlsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR_FOR_TESTS;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void write_gzip(const std::string& file, const std::string& content) {
  gzFile gz = gzopen(file.c_str(), "wb");
  REQUIRE(gz != nullptr);
  REQUIRE(gzwrite(gz, content.data(), static_cast<unsigned>(content.size())) ==
          static_cast<int>(content.size()));
  REQUIRE(gzclose(gz) == Z_OK);
}

// Nested anchors: level k is a list of 9 aliases of level k-1, so the document expands to
// 9^levels scalars while its text grows by one line per level.
std::string alias_bomb(int levels) {
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x]\n";
  for (int k = 1; k <= levels; ++k) {
    text += fmt::format("l{}: &l{} [", k, k);
    for (int i = 0; i < 9; ++i)
      text += fmt::format("{}*l{}", i > 0 ? ", " : "", k - 1);
    text += "]\n";
  }
  return text;
}

} // namespace

TEST_CASE("YAML: nested anchors are refused at once, a few aliases read as before", "[hostile]") {
  ScratchDir dir;
  // 9^10 = 3,486,784,401 scalars expanded: far above the 1,000,000 nodes aliases may add.
  const std::string bomb = dir.write("bomb.yaml", alias_bomb(10));
  // Before the bound this did not return (hours); ctest's timeout is the guard, not a clock.
  std::string e = error_of([&] { load_yaml_file(bomb); });
  CHECK(e.find("bomb.yaml: aliases (*name) expand the document to more than 1000000 nodes") !=
        std::string::npos);
  // 9^5 = 59,049 scalars: within the bound, and read whole.
  YAML::Node small = load_yaml_file(dir.write("small.yaml", alias_bomb(5)));
  CHECK(small["l5"].size() == 9);
  // l5 -> l4 -> l3 -> l2 -> l1 -> l0 -> x: six steps down.
  CHECK(small["l5"][8][8][8][8][8][8].Scalar() == "x");
  // The same through --set.
  YAML::Node root(YAML::NodeType::Map);
  std::string flow = "{a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]";
  for (int k = 1; k <= 10; ++k) {
    flow += fmt::format(", l{}: &l{} [", k, k);
    for (int i = 0; i < 9; ++i)
      flow += fmt::format("{}*{}", i > 0 ? ", " : "", k == 1 ? "a" : fmt::format("l{}", k - 1));
    flow += "]";
  }
  flow += "}";
  e = error_of([&] { yaml_set_path(root, "policy.params", flow); });
  CHECK(e.find("--set: aliases (*name) expand the document") != std::string::npos);
}

TEST_CASE("YAML: a duplicate key inside an anchored block is reported once, where written",
          "[hostile]") {
  ScratchDir dir;
  const std::string file = dir.write("dup.yaml", "base: &b\n  seed: 1\n  seed: 2\nuse: [*b, *b]\n");
  CHECK(error_of([&] { load_yaml_file(file); }) ==
        file + ":3: base.seed: duplicate key (first given at line 2)");
}

TEST_CASE("UTF-8: well-formed sequences pass, every other byte is found", "[hostile]") {
  CHECK(invalid_utf8_offset("plain ascii") == std::string_view::npos);
  CHECK(invalid_utf8_offset("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == std::string_view::npos);
  CHECK(invalid_utf8_offset("\xf4\x8f\xbf\xbf") == std::string_view::npos); // U+10FFFF
  CHECK(invalid_utf8_offset("\xff") == 0);
  CHECK(invalid_utf8_offset("ab\xc0\xaf") == 2);       // overlong '/'
  CHECK(invalid_utf8_offset("a\xed\xa0\x80") == 1);    // a UTF-16 surrogate, U+D800
  CHECK(invalid_utf8_offset("\xf4\x90\x80\x80") == 0); // U+110000, beyond Unicode
  CHECK(invalid_utf8_offset("ok\xe2\x82") == 2);       // cut short
  CHECK(invalid_utf8_offset("\xc3\xa9\x80") == 2);     // a lone continuation byte
  CHECK(utf8_problem("id\xfe") == "not valid UTF-8 (byte 0xfe at offset 2)");
}

TEST_CASE("UTF-8: a trace name or a YAML value that is not UTF-8 is an input error", "[hostile]") {
  std::string e = error_of([] {
    check_trace_text(trace_from_csv("id,submit_s,workers,duration_s\nok,0,1,10\n\xff,0,1,10\n"));
  });
  CHECK(e.find(":3: id: '\xff': not valid UTF-8 (byte 0xff at offset 0)") != std::string::npos);
  e = error_of([] {
    check_trace_text(
        trace_from_csv("id,submit_s,workers,duration_s,user\na,0,1,10,bob\nb,0,1,10,b\xe9\n"));
  });
  CHECK(e.find(":3: user: 'b\xe9': not valid UTF-8 (byte 0xe9 at offset 1)") != std::string::npos);
  ScratchDir dir;
  const std::string file = dir.write("c.yaml", "name: \"ok\"\nother: \"x\xff\"\n");
  CHECK(error_of([&] { load_yaml_file(file); }) ==
        file + ":2: other: not valid UTF-8 (byte 0xff at offset 1)");
  // End to end: exit 1 naming the row, no staging directory or result left.
  dir.write("t.csv", "id,submit_s,workers,duration_s\n\xff,0,1,10\n");
  Outcome o =
      run_dlsim(fmt::format("run -q --trace {} -o {}", dir.file("t.csv"), dir.file("o")), dir);
  CHECK(o.code == 1);
  CHECK(o.err.find("t.csv:2: id:") != std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find("dlsim-new") == std::string::npos);
  CHECK_FALSE(fs::exists(dir.file("o")));
}

TEST_CASE("gzip: every text trace format reads its .gz as its plain file, and auto guesses it",
          "[hostile][trace]") {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> traces = {
      {"native", "traces/sample.csv"},
      {"tiresias", "traces/tiresias_60_job.csv"},
      {"helios", "traces/helios_cluster_log_synthetic.csv"},
      {"philly", "traces/philly_cluster_job_log_synthetic.json"},
      {"philly-csv", "traces/philly_pollux_excerpt.csv"},
      {"pollux", "traces/pollux_workload-1.csv"},
      {"muri", "traces/muri/trace1.csv"},
      {"openb", "traces/openb_pod_list_default-excerpt.csv"},
      {"swf", "traces/ricc-2010-2-excerpt.swf"},
  };
  for (const auto& [format_name, path] : traces) {
    INFO(format_name << " " << path);
    const TraceFormat& format = find_trace_format(format_name);
    ReadOptions options;
    options.pollux_profiles = kSource + "/traces/pollux-profiles";
    const std::string file = fs::path(kSource) / path;
    Trace plain = format.read(file, options);
    const std::string gz = dir.file(fs::path(path).filename().string() + ".gz");
    write_gzip(gz, read_file(file));
    Trace packed = format.read(gz, options);
    REQUIRE(packed.jobs.size() == plain.jobs.size());
    REQUIRE_FALSE(plain.jobs.empty());
    for (std::size_t i = 0; i < plain.jobs.size(); ++i) {
      CHECK(packed.name(packed.jobs[i]) == plain.name(plain.jobs[i]));
      CHECK(packed.jobs[i].submit_s == plain.jobs[i].submit_s);
      CHECK(packed.jobs[i].duration_s == plain.jobs[i].duration_s);
      CHECK(packed.jobs[i].workers == plain.jobs[i].workers);
      CHECK(packed.jobs[i].line == plain.jobs[i].line);
    }
    FormatGuess guess = guess_trace_format(gz);
    CHECK(guess.format == guess_trace_format(file).format);
    CHECK(guess.reason.find("gzip-compressed") != std::string::npos);
  }
  // The first 50 lines of the native sample, as the defect report made it.
  std::string head;
  {
    std::string all = read_file(kSource + "/traces/sample.csv");
    std::size_t at = 0;
    for (int line = 0; line < 50 && at != std::string::npos; ++line)
      at = all.find('\n', at) == std::string::npos ? std::string::npos : all.find('\n', at) + 1;
    head = all.substr(0, at);
  }
  write_gzip(dir.file("s.csv.gz"), head);
  CHECK(find_trace_format("native").read(dir.file("s.csv.gz"), ReadOptions{}).jobs.size() == 49);
}

TEST_CASE("provenance: a pai2020 run checksums the tables its reader reads", "[hostile]") {
  ScratchDir dir;
  Outcome o = run_dlsim(fmt::format("run -q --trace traces/pai2020-sample --format pai2020 "
                                    "--cluster configs/clusters/pai2020.yaml -o {}",
                                    dir.file("o")),
                        dir);
  REQUIRE(o.code == 0);
  auto prov = nlohmann::json::parse(read_file(dir.file("o/provenance.json")));
  const auto& trace = prov["inputs"]["trace"];
  CHECK(trace["path"].get<std::string>() ==
        fs::absolute(kSource + "/traces/pai2020-sample").lexically_normal().string());
  // The two required tables, then the two optional ones the sample has.
  REQUIRE(trace["files"].size() == 4);
  const char* names[] = {"pai_job_table.csv", "pai_task_table.csv", "pai_group_tag_table.csv",
                         "pai_sensor_table.csv"};
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string file = kSource + "/traces/pai2020-sample/" + names[i];
    const std::string text = read_file(file);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
    CHECK(trace["files"][i]["path"].get<std::string>() ==
          fs::absolute(file).lexically_normal().string());
    CHECK(trace["files"][i]["crc32"] == fmt::format("{:08x}", static_cast<std::uint32_t>(crc)));
    CHECK(trace["files"][i]["bytes"] == text.size());
  }
}

TEST_CASE("aiturbo and optimus never suspend a job that is still resizing", "[hostile][policy]") {
  // At rounds of 30 s or less a round falls inside a checkpoint-restart resize: the pass must
  // leave the resizing holder alone rather than issue a suspend the runtime refuses.
  for (const char* policy : {"aiturbo", "optimus"}) {
    for (const char* interval : {"30", "10"}) {
      INFO(policy << " interval_s=" << interval);
      ScratchDir dir;
      Outcome o = run_dlsim(fmt::format("run -q -e configs/experiments/aiturbo-mix.yaml --set "
                                        "policy.name={} --set policy.params.interval_s={} -o {}",
                                        policy, interval, dir.file("o")),
                            dir);
      CHECK(o.code == 0);
      CHECK(o.err.find("refused") == std::string::npos);
    }
  }
}
