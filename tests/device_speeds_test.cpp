// Per-model times on Xeon Phi and Xeon sockets from DeepBench's kernel times
// (docs/models.md#non-gpu-devices): the layer-mix rule by hand, the shipped zoo equal to a fresh
// derivation, and ResNet-50 and the LSTM slowed differently on a Phi, as the kernels measured.
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "workloads/device_speeds.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dlsim;

namespace {

std::string source(const std::string& path) {
  return std::string(DLSIM_SOURCE_DIR_FOR_TESTS) + "/" + path;
}

ModelInfo model(const std::string& family, double batch, double conv, double linear) {
  ModelInfo m;
  m.name = "m";
  m.family = family;
  m.batch_size = batch;
  m.has_graph = true;
  m.conv_layers = conv;
  m.linear_layers = linear;
  m.iteration_time_s["V100"] = 0.2;
  return m;
}

} // namespace

TEST_CASE("kernel ratios are geometric means per class", "[device_speeds]") {
  test::ScratchDir dir;
  std::string file = dir.write("kernels.csv", "kind,shape,n,XeonPhi_ms,V100_ms,P100_ms\n"
                                              "conv,a,16,2,1,1\n"
                                              "conv,b,32,8,1,3\n"
                                              "gemm,c,128,3,1,2\n"
                                              "gemm,d,129,1,2,4\n"
                                              "gemm,e,7000,4,2,1\n");
  std::vector<KernelTime> k = load_kernel_times(file);
  REQUIRE(k.size() == 5);
  KernelRatios phi = kernel_ratios(k, KernelDevice::kXeonPhi);
  CHECK(phi.conv == Approx(4.0));        // sqrt(2/1 x 8/1) = sqrt(16)
  CHECK(phi.gemm_narrow == Approx(3.0)); // N 128 is narrow: 3/1
  CHECK(phi.gemm_wide == Approx(1.0));   // N 129 and 7000: sqrt(1/2 x 4/2) = 1
  KernelRatios p100 = kernel_ratios(k, KernelDevice::kP100);
  CHECK(p100.conv == Approx(std::sqrt(3.0))); // sqrt(1 x 3)
  CHECK(p100.gemm_wide == Approx(1.0));       // sqrt(4/2 x 1/2)
}

TEST_CASE("the layer-mix rule weighs each class's ratio by its share of layers",
          "[device_speeds]") {
  KernelRatios r{4.0, 3.0, 1.0};
  // 3 conv + 1 linear at batch 32: 3/4 x 4 + 1/4 x 3 (narrow: N = 32) = 3.75.
  LayerMix cnn = *layer_mix(model("cnn", 32, 3, 1));
  CHECK(cnn.conv == 0.75);
  CHECK(cnn.narrow_gemm);
  CHECK(mix_ratio(cnn, r) == Approx(3.75));
  // Batch 256 makes the GEMMs wide: 3/4 x 4 + 1/4 x 1 = 3.25.
  CHECK(mix_ratio(*layer_mix(model("cnn", 256, 3, 1)), r) == Approx(3.25));
  // A transformer's GEMMs see every token, wide even at batch 12: 1.0.
  CHECK(mix_ratio(*layer_mix(model("transformer", 12, 0, 10)), r) == Approx(1.0));
  // An RNN at batch 20, 5 linear maps: all narrow, 3.0.
  CHECK(mix_ratio(*layer_mix(model("rnn", 20, 0, 5)), r) == Approx(3.0));

  // Derived times: V100 0.2 s x 3.75 = 0.75 s on a Phi, x 2 (a socket per Phi) = 1.5 s.
  DerivedDeviceTimes d = *derive_device_times(model("cnn", 32, 3, 1), r, {});
  CHECK(d.xeon_phi_s == 0.75);
  CHECK(d.xeon_cpu_s == 1.5);
  // Memory-bound recommendation: 0.2 x 900 / 450 = 0.4 and 0.2 x 900 / 128 = 1.40625 -> 1.41.
  DerivedDeviceTimes rec = *derive_device_times(model("recommendation", 1 << 20, 0, 5), r, {});
  CHECK(rec.xeon_phi_s == 0.4);
  CHECK(rec.xeon_cpu_s == 1.41);

  ModelInfo no_graph = model("cnn", 32, 3, 1);
  no_graph.has_graph = false;
  CHECK_FALSE(layer_mix(no_graph));
  CHECK_FALSE(derive_device_times(no_graph, r, {}));

  // A measurement of the model wins over the rule: 80 samples/s over 2 sockets is 40 per
  // socket, so a batch of 32 takes 32 / 40 = 0.8 s; the Phi keeps the rule's 0.75 s.
  ModelInfo measured = model("cnn", 32, 3, 1);
  DerivedDeviceTimes m =
      *derive_device_times(measured, r, {MeasuredSpeed{"m", "XeonCPU", 80, 2, 64, "test"}});
  CHECK(m.xeon_cpu_s == 0.8);
  CHECK(m.cpu_measured);
  CHECK(m.xeon_phi_s == 0.75);
  CHECK_FALSE(m.phi_measured);
}

TEST_CASE("round3 keeps three significant digits", "[device_speeds]") {
  CHECK(round3(0.67024) == 0.67);
  CHECK(round3(0.043265) == 0.0433);
  CHECK(round3(1234.5) == 1230);
  CHECK(round3(2.8145) == 2.81);
}

TEST_CASE("the zoo's Xeon Phi and Xeon times equal a fresh derivation from the kernel file",
          "[device_speeds]") {
  std::vector<KernelTime> kernels =
      load_kernel_times(source("configs/devices/deepbench-train.csv"));
  // DeepBench's GEMM and convolution kernels timed on all three devices.
  CHECK(kernels.size() == 242);
  KernelRatios phi = kernel_ratios(kernels, KernelDevice::kXeonPhi);
  std::vector<MeasuredSpeed> measured =
      load_measured_speeds(source("configs/devices/measured-models.csv"));
  ModelZoo zoo = load_model_zoo(source("configs/models/zoo.yaml"));
  int derived = 0;
  for (const ModelInfo& m : zoo.models) {
    if (!m.iteration_time_s.count("XeonPhi") && !m.iteration_time_s.count("XeonCPU")) continue;
    INFO(m.name);
    std::optional<DerivedDeviceTimes> d = derive_device_times(m, phi, measured);
    REQUIRE(d);
    CHECK(m.iteration_time_s.at("XeonPhi") == d->xeon_phi_s);
    CHECK(m.iteration_time_s.at("XeonCPU") == d->xeon_cpu_s);
    ++derived;
  }
  CHECK(derived == 11);
  // ResNet-50 on a socket is PaddlePaddle's measurement: 32 / (81.69 / 2) = 0.7834 -> 0.783.
  CHECK(zoo.models[*zoo.find("resnet50")].iteration_time_s.at("XeonCPU") == 0.783);
}

TEST_CASE("on a Xeon Phi, ResNet-50 and the LSTM slow down by different factors",
          "[device_speeds]") {
  // DeepBench measured the Phi 3.54x a V100's time on convolutions and 2.81x on narrow GEMMs:
  // ResNet-50 (53 conv, 1 linear) and the LSTM (GEMMs at batch 20) must not share one factor.
  ModelZoo zoo = load_model_zoo(source("configs/models/zoo.yaml"));
  auto slowdown = [&](const char* name) {
    const ModelInfo& m = zoo.models[*zoo.find(name)];
    return m.iteration_time_s.at("XeonPhi") / m.iteration_time_s.at("V100");
  };
  double ratio = slowdown("resnet50") / slowdown("lstm");
  INFO("resnet50 slowdown / lstm slowdown = " << ratio);
  CHECK((ratio < 0.95 || ratio > 1.05));
  // By hand: (53/54 x 3.543 + 1/54 x 2.810) / 2.810 = 3.530 / 2.810 = 1.256 (zoo rounding aside).
  CHECK(ratio == Approx(1.256).epsilon(0.01));
}

TEST_CASE("a bad kernel file is an error naming file, line and column", "[device_speeds]") {
  test::ScratchDir dir;
  std::string file = dir.write("bad.csv", "kind,shape,n,XeonPhi_ms,V100_ms,P100_ms\n"
                                          "conv,a,16,2,1,1\n"
                                          "gemm,b,32,0,1,1\n");
  CHECK_THROWS_WITH(load_kernel_times(file),
                    Catch::Contains(file + ":3: XeonPhi_ms: expected a time in milliseconds > 0"));
  std::string no_column = dir.write("nocol.csv", "kind,shape,n,V100_ms,P100_ms\nconv,a,16,1,1\n");
  CHECK_THROWS_WITH(load_kernel_times(no_column),
                    Catch::Contains(":1: the header has no column 'XeonPhi_ms'"));
  std::string kind = dir.write("kind.csv", "kind,shape,n,XeonPhi_ms,V100_ms,P100_ms\n"
                                           "rnn,a,16,2,1,1\n");
  CHECK_THROWS_WITH(load_kernel_times(kind), Catch::Contains(":2: kind: expected conv or gemm"));
  std::string only_conv = dir.write("conv.csv", "kind,shape,n,XeonPhi_ms,V100_ms,P100_ms\n"
                                                "conv,a,16,2,1,1\n"
                                                "gemm,b,7000,2,1,1\n");
  CHECK_THROWS_WITH(load_kernel_times(only_conv),
                    Catch::Contains("conv.csv: no narrow GEMM (gemm, n <= 128) row"));
  // kernel_ratios checks the same of rows made in code.
  CHECK_THROWS_WITH(kernel_ratios({KernelTime{"conv", "a", 16, 2, 1, 1}}, KernelDevice::kXeonPhi),
                    Catch::Contains("no narrow GEMM kernel"));
}

TEST_CASE("the held-out check borrows the zoo's graph counts and keeps the measured batch",
          "[device_speeds]") {
  ModelZoo zoo;
  zoo.models.push_back(model("rnn", 20, 0, 5));
  zoo.models.back().name = "lstm";
  ModelZoo measured;
  auto add = [&](const char* name, double batch, double p100_s, double v100_s) {
    ModelInfo m;
    m.name = name;
    m.family = "rnn";
    m.batch_size = batch;
    m.iteration_time_s = {{"P100", p100_s}, {"V100", v100_s}};
    measured.models.push_back(m);
  };
  add("gavel_lm_bs40", 40, 0.3, 0.2);      // narrow GEMMs: predicted 3, measured 1.5
  add("gavel_lm_bs256", 256, 0.2, 0.2);    // batch 256: wide GEMMs, predicted 1, measured 1
  add("gavel_a3c", 1, 0.2, 0.1);           // no zoo architecture: left out
  add("gavel_transformer_bs16", 16, 1, 1); // the zoo here has no transformer: left out
  std::vector<HeldOutRatio> rows = held_out_p100_ratios(measured, zoo, KernelRatios{4.0, 3.0, 1.0});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].model == "gavel_lm_bs40");
  CHECK(rows[0].predicted == Approx(3.0));
  CHECK(rows[0].measured == Approx(1.5));
  CHECK(rows[0].error() == Approx(1.0)); // |3 - 1.5| / 1.5
  CHECK(rows[1].predicted == Approx(1.0));
  CHECK(rows[1].error() == Approx(0.0).margin(1e-12));
}

TEST_CASE("a bad measurement file is an error naming file, line and column", "[device_speeds]") {
  test::ScratchDir dir;
  const char* header = "model,device_type,samples_per_s,devices,batch_size,source\n";
  std::string type = dir.write("type.csv", std::string(header) + "resnet50,V100,80,2,64,x\n");
  CHECK_THROWS_WITH(load_measured_speeds(type),
                    Catch::Contains("type.csv:2: device_type: expected XeonPhi or XeonCPU"));
  std::string zero = dir.write("zero.csv", std::string(header) + "resnet50,XeonCPU,80,0,64,x\n");
  CHECK_THROWS_WITH(load_measured_speeds(zero),
                    Catch::Contains("zero.csv:2: devices: expected a device count > 0"));
  std::string twice = dir.write("twice.csv", std::string(header) + "resnet50,XeonCPU,80,2,64,x\n"
                                                                   "resnet50,XeonCPU,90,2,64,y\n");
  CHECK_THROWS_WITH(
      load_measured_speeds(twice),
      Catch::Contains("twice.csv:3: model: resnet50 on XeonCPU is already given at line 2"));
}
