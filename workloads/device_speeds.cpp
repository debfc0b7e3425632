#include "workloads/device_speeds.h"

#include "sim/engine/error.h"
#include "workloads/formats/csv_row_loop.h"
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/field_parse.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace dlsim {

namespace {

double positive_ms(const char* text) {
  std::optional<double> v = parse_double_field(text);
  if (!v || !std::isfinite(*v) || *v <= 0) {
    throw FieldError{fmt::format("expected a time in milliseconds > 0, got '{}'", text)};
  }
  return *v;
}

} // namespace

std::vector<KernelTime> load_kernel_times(const std::string& file) {
  static constexpr std::array<const char*, 6> kColumns{"kind",       "shape",   "n",
                                                       "XeonPhi_ms", "V100_ms", "P100_ms"};
  std::vector<std::string> header = read_csv_header(file);
  for (const char* column : kColumns) {
    if (!has_column(header, column)) {
      throw InputError(fmt::format("{}:1: the header has no column '{}' (the columns are {})", file,
                                   column, fmt::join(kColumns, ",")));
    }
  }
  std::vector<KernelTime> kernels;
  auto on_row = [&](const std::array<char*, 6>& cells, CsvRow& row) {
    KernelTime k;
    row.column = "kind";
    k.kind = cells[0];
    if (k.kind != "conv" && k.kind != "gemm") {
      throw FieldError{fmt::format("expected conv or gemm, got '{}'", k.kind)};
    }
    k.shape = cells[1];
    row.column = "n";
    std::optional<std::int64_t> n = parse_int_field(cells[2]);
    if (!n || *n <= 0)
      throw FieldError{fmt::format("expected a whole number > 0, got '{}'", cells[2])};
    k.n = static_cast<long>(*n);
    row.column = "XeonPhi_ms";
    k.xeon_phi_ms = positive_ms(cells[3]);
    row.column = "V100_ms";
    k.v100_ms = positive_ms(cells[4]);
    row.column = "P100_ms";
    k.p100_ms = positive_ms(cells[5]);
    kernels.push_back(std::move(k));
  };
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, header.size()}, kColumns, on_row,
               [](const std::string& message) { throw InputError(message); });
  // Every class of the layer-mix rule needs a measured ratio.
  bool conv = false, narrow = false, wide = false;
  for (const KernelTime& k : kernels) {
    conv = conv || k.kind == "conv";
    narrow = narrow || (k.kind == "gemm" && k.n <= kNarrowGemmMaxN);
    wide = wide || (k.kind == "gemm" && k.n > kNarrowGemmMaxN);
  }
  if (!conv || !narrow || !wide) {
    std::string missing = !conv     ? std::string("conv")
                          : !narrow ? fmt::format("narrow GEMM (gemm, n <= {})", kNarrowGemmMaxN)
                                    : fmt::format("wide GEMM (gemm, n > {})", kNarrowGemmMaxN);
    throw InputError(fmt::format("{}: no {} row: the layer-mix rule needs convolutions, narrow "
                                 "GEMMs and wide GEMMs",
                                 file, missing));
  }
  return kernels;
}

KernelRatios kernel_ratios(const std::vector<KernelTime>& kernels, KernelDevice device) {
  // Geometric means: a ratio's spread is multiplicative, and one kernel DeepBench's Phi runs
  // 67x slower than a V100 must not outweigh 81 others.
  std::array<double, 3> log_sum{};
  std::array<int, 3> count{};
  for (const KernelTime& k : kernels) {
    int c = k.kind == "conv" ? 0 : (k.n <= kNarrowGemmMaxN ? 1 : 2);
    double ms = device == KernelDevice::kXeonPhi ? k.xeon_phi_ms : k.p100_ms;
    log_sum[c] += std::log(ms / k.v100_ms);
    ++count[c];
  }
  static constexpr std::array<const char*, 3> kNames{"convolution", "narrow GEMM", "wide GEMM"};
  std::array<double, 3> mean{};
  for (int c = 0; c < 3; ++c) {
    if (count[c] == 0)
      throw InputError(fmt::format("no {} kernel among the kernel times", kNames[c]));
    mean[c] = std::exp(log_sum[c] / count[c]);
  }
  return {mean[0], mean[1], mean[2]};
}

std::optional<LayerMix> layer_mix(const ModelInfo& model) {
  if (!model.has_graph) return std::nullopt;
  double layers = model.conv_layers + model.linear_layers;
  if (layers <= 0) return std::nullopt;
  LayerMix mix;
  mix.conv = model.conv_layers / layers;
  mix.gemm = model.linear_layers / layers;
  mix.narrow_gemm = model.family != "transformer" && model.batch_size <= kNarrowGemmMaxN;
  return mix;
}

double mix_ratio(const LayerMix& mix, const KernelRatios& ratios) {
  return mix.conv * ratios.conv +
         mix.gemm * (mix.narrow_gemm ? ratios.gemm_narrow : ratios.gemm_wide);
}

std::vector<HeldOutRatio> held_out_p100_ratios(const ModelZoo& measured, const ModelZoo& zoo,
                                               const KernelRatios& p100) {
  // Gavel's job names by architecture (gavel_<arch>_bs<batch>) and the zoo model of the same
  // network whose graph counts they borrow. A3C, CycleGAN and the recommendation model have no
  // zoo counterpart (the zoo's ncf is memory-bound and follows another rule).
  static constexpr std::array<std::array<const char*, 2>, 4> kArchitectures{{
      {"gavel_resnet18_bs", "resnet18"},
      {"gavel_resnet50_bs", "resnet50"},
      {"gavel_transformer_bs", "transformer"},
      {"gavel_lm_bs", "lstm"},
  }};
  std::vector<HeldOutRatio> out;
  for (const ModelInfo& m : measured.models) {
    auto p = m.iteration_time_s.find("P100");
    auto v = m.iteration_time_s.find("V100");
    if (p == m.iteration_time_s.end() || v == m.iteration_time_s.end()) continue;
    for (const auto& [prefix, zoo_name] : kArchitectures) {
      if (m.name.rfind(prefix, 0) != 0) continue;
      auto z = zoo.find(zoo_name);
      if (!z) break;
      ModelInfo borrowed = zoo.models[*z];
      borrowed.batch_size = m.batch_size;
      std::optional<LayerMix> mix = layer_mix(borrowed);
      if (!mix) break;
      out.push_back({m.name, mix_ratio(*mix, p100), p->second / v->second});
      break;
    }
  }
  return out;
}

double round3(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  // Scaled by an exact power of ten either way, so that 0.67 comes back as the double "0.67" reads.
  int digits = 2 - static_cast<int>(std::floor(std::log10(std::abs(x))));
  if (digits >= 0) {
    double scale = std::pow(10.0, digits);
    return std::round(x * scale) / scale;
  }
  double scale = std::pow(10.0, -digits);
  return std::round(x / scale) * scale;
}

std::vector<MeasuredSpeed> load_measured_speeds(const std::string& file) {
  static constexpr std::array<const char*, 6> kColumns{"model",   "device_type", "samples_per_s",
                                                       "devices", "batch_size",  "source"};
  std::vector<std::string> header = read_csv_header(file);
  for (const char* column : kColumns) {
    if (!has_column(header, column)) {
      throw InputError(fmt::format("{}:1: the header has no column '{}' (the columns are {})", file,
                                   column, fmt::join(kColumns, ",")));
    }
  }
  std::vector<MeasuredSpeed> out;
  std::vector<unsigned> lines;
  auto positive = [](const char* text, const char* what) {
    std::optional<double> v = parse_double_field(text);
    if (!v || !std::isfinite(*v) || *v <= 0) {
      throw FieldError{fmt::format("expected {} > 0, got '{}'", what, text)};
    }
    return *v;
  };
  auto on_row = [&](const std::array<char*, 6>& cells, CsvRow& row) {
    MeasuredSpeed m;
    m.model = cells[0];
    row.column = "device_type";
    m.device_type = cells[1];
    if (m.device_type != "XeonPhi" && m.device_type != "XeonCPU") {
      throw FieldError{fmt::format("expected XeonPhi or XeonCPU, got '{}'", m.device_type)};
    }
    row.column = "samples_per_s";
    m.samples_per_s = positive(cells[2], "a throughput");
    row.column = "devices";
    m.devices = positive(cells[3], "a device count");
    row.column = "batch_size";
    m.batch_size = positive(cells[4], "a batch size");
    m.source = cells[5];
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i].model == m.model && out[i].device_type == m.device_type) {
        row.column = "model";
        throw FieldError{
            fmt::format("{} on {} is already given at line {}", m.model, m.device_type, lines[i])};
      }
    }
    out.push_back(std::move(m));
    lines.push_back(row.line);
  };
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, header.size()}, kColumns, on_row,
               [](const std::string& message) { throw InputError(message); });
  return out;
}

double measured_iteration_s(const MeasuredSpeed& m, double batch_size) {
  return batch_size / (m.samples_per_s / m.devices);
}

std::optional<DerivedDeviceTimes> derive_device_times(const ModelInfo& model,
                                                      const KernelRatios& phi,
                                                      const std::vector<MeasuredSpeed>& measured) {
  auto v100 = model.iteration_time_s.find("V100");
  if (v100 == model.iteration_time_s.end()) return std::nullopt;
  double t = v100->second;
  DerivedDeviceTimes d;
  if (model.family == "recommendation") {
    d.xeon_phi_s = round3(t * kV100BandwidthGBs / kPhiBandwidthGBs);
    d.xeon_cpu_s = round3(t * kV100BandwidthGBs / kSocketBandwidthGBs);
  } else {
    std::optional<LayerMix> mix = layer_mix(model);
    if (!mix) return std::nullopt;
    double phi_s = t * mix_ratio(*mix, phi);
    d.xeon_phi_s = round3(phi_s);
    d.xeon_cpu_s = round3(phi_s * kSocketPerPhi);
  }
  for (const MeasuredSpeed& m : measured) {
    if (m.model != model.name) continue;
    double s = round3(measured_iteration_s(m, model.batch_size));
    if (m.device_type == "XeonPhi") {
      d.xeon_phi_s = s;
      d.phi_measured = true;
    } else {
      d.xeon_cpu_s = s;
      d.cpu_measured = true;
    }
  }
  return d;
}

} // namespace dlsim
