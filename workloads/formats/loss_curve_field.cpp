#include "workloads/formats/loss_curve_field.h"

#include "workloads/formats/field_parse.h"
#include "workloads/formats/trace_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include <string>
#include <vector>

namespace dlsim {

namespace {

constexpr std::string_view kForm =
    "expected FAMILY;key=value;..., e.g. optimus;a=0.001;b=0.5;c=0.1;target=0.2";

double number_of(std::string_view key, std::string_view value) {
  const std::string text(value);
  std::optional<double> v;
  try {
    v = parse_double_field(text.c_str());
  } catch (const FieldError& e) {
    throw FieldError{fmt::format("{}: {}", key, e.what)};
  }
  if (!v) throw FieldError{fmt::format("{}: missing value", key)};
  return *v;
}

} // namespace

LossCurve parse_loss_curve_field(std::string_view text) {
  LossCurve c;
  const std::size_t semi = text.find(';');
  const std::string_view family = text.substr(0, semi);
  if (family == "optimus") {
    c.family = CurveFamily::kOptimus;
  } else if (family == "plateau") {
    c.family = CurveFamily::kPlateau;
  } else {
    throw FieldError{
        fmt::format("unknown curve family '{}' (valid: optimus, plateau); {}", family, kForm)};
  }
  bool has_a = false, has_b = false, has_target = false, has_plateau = false;
  std::vector<std::string_view> seen;
  std::string_view rest = semi == std::string_view::npos ? "" : text.substr(semi + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find(';');
    const std::string_view item = rest.substr(0, next);
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw FieldError{fmt::format("'{}': {}", item, kForm)};
    const std::string_view key = item.substr(0, eq);
    // A repeated key would silently keep its last value: the writer meant one of them.
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw FieldError{fmt::format("'{}' is given twice; {}", key, kForm)};
    seen.push_back(key);
    const double v = number_of(key, item.substr(eq + 1));
    if (key == "a") {
      if (!(v > 0)) throw FieldError{fmt::format("a: must be positive, got {}", v)};
      c.a = v;
      has_a = true;
    } else if (key == "b") {
      if (!(v > 0)) throw FieldError{fmt::format("b: must be positive, got {}", v)};
      c.b = v;
      has_b = true;
    } else if (key == "c") {
      if (!(v >= 0)) throw FieldError{fmt::format("c: must not be negative, got {}", v)};
      c.c = v;
    } else if (key == "target") {
      c.target = v;
      has_target = true;
    } else if (key == "noise") {
      if (!(v >= 0 && v <= 1)) throw FieldError{fmt::format("noise: must be in [0, 1], got {}", v)};
      c.noise = v;
    } else if (key == "every") {
      if (!(v >= 1 && v <= 1e9 && v == std::floor(v)))
        throw FieldError{fmt::format("every: must be a whole number from 1 to 1e9, got {}", v)};
      c.every = v;
    } else if (key == "plateau" && c.family == CurveFamily::kPlateau) {
      if (!(v >= 0 && v <= kMaxTraceIterations))
        throw FieldError{fmt::format("plateau: must be from 0 to {:g} iterations, got {}",
                                     kMaxTraceIterations, v)};
      c.plateau = v;
      has_plateau = true;
    } else {
      throw FieldError{fmt::format("unknown key '{}' (valid: a, b, c, target, noise, every{})", key,
                                   c.family == CurveFamily::kPlateau ? ", plateau" : "")};
    }
  }
  if (!has_a || !has_b || !has_target)
    throw FieldError{fmt::format("{} is missing ({})",
                                 !has_a   ? "a"
                                 : !has_b ? "b"
                                          : "target",
                                 kForm)};
  if (c.family == CurveFamily::kPlateau && !has_plateau)
    throw FieldError{"plateau is missing: a plateau curve needs plateau=ITERATIONS"};
  if (!(c.target > c.c)) {
    throw FieldError{fmt::format(
        "the curve never reaches its target: target {} is not above the asymptote c = {}", c.target,
        c.c)};
  }
  const double k = iterations_to_target(c);
  if (!(k <= kMaxTraceIterations)) {
    throw FieldError{fmt::format("the curve needs {:g} iterations to reach its target, more than "
                                 "the {:g} a trace may give",
                                 k, kMaxTraceIterations)};
  }
  return c;
}

} // namespace dlsim
