// Training, prediction and the file of the predictability classifier (predictability_classifier.h).
#include "workloads/learn/predictability_classifier.h"

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace dlsim {

namespace {

constexpr const char* kMagic = "dlsim-predictability-classifier 1";

void put_vector(std::string& out, const char* key, const Eigen::VectorXd& v) {
  out += key;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    out += fmt::format(" {}", v(i));
  out += '\n';
}

// The file's non-blank, non-comment lines, split into words, with their numbers.
struct Line {
  unsigned number = 0;
  std::vector<std::string> words;
};

class Lines {
public:
  Lines(std::string_view text, std::string name) : name_(std::move(name)) {
    std::istringstream in{std::string(text)};
    std::string raw;
    while (std::getline(in, raw)) {
      ++last_;
      std::istringstream words(raw);
      Line line{last_, {}};
      for (std::string w; words >> w;)
        line.words.push_back(w);
      if (!line.words.empty() && line.words[0][0] != '#') lines_.push_back(std::move(line));
    }
  }

  [[noreturn]] void fail(unsigned line, const std::string& what) const {
    throw InputError(fmt::format("{}:{}: {}", name_, line, what));
  }

  // The next line, which must start with `key`.
  const Line& expect(const std::string& key) {
    if (next_ >= lines_.size())
      fail(last_ + 1, fmt::format("the file ends where '{}' is expected (truncated?)", key));
    const Line& line = lines_[next_++];
    if (line.words[0] != key)
      fail(line.number, fmt::format("expected '{}', found {}", key, quote_input(line.words[0])));
    return line;
  }

  [[nodiscard]] bool at_end() const { return next_ >= lines_.size(); }
  [[nodiscard]] const Line& peek() const { return lines_[next_]; }

  double number(const Line& line, std::size_t i) const {
    std::optional<double> v;
    try {
      v = parse_double_field(line.words[i].c_str());
    } catch (const FieldError&) {
      v.reset();
    }
    if (!v || !std::isfinite(*v))
      fail(line.number, fmt::format("{}: expected a finite number, got {}", line.words[0],
                                    quote_input(line.words[i])));
    return *v;
  }

  Eigen::VectorXd vector(const char* key, std::size_t n, bool positive = false) {
    const Line& line = expect(key);
    if (line.words.size() != n + 1)
      fail(line.number, fmt::format("{}: expected {} numbers (one per feature), got {}", key, n,
                                    line.words.size() - 1));
    Eigen::VectorXd v(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) {
      v(static_cast<Eigen::Index>(i)) = number(line, i + 1);
      if (positive && !(v(static_cast<Eigen::Index>(i)) > 0))
        fail(line.number, fmt::format("{}: value {} must be > 0", key, i + 1));
    }
    return v;
  }

private:
  std::string name_;
  std::vector<Line> lines_;
  std::size_t next_ = 0;
  unsigned last_ = 0;
};

} // namespace

PredictabilityClassifier train_predictability_classifier(const PredictabilityData& data,
                                                         std::size_t train_rows,
                                                         const std::vector<FeatureScore>& scores) {
  PredictabilityClassifier c;
  for (std::size_t f = 0; f < scores.size(); ++f)
    if (scores[f].selected) c.features.push_back(f);
  if (c.features.empty()) throw InputError("predictability classifier: no feature is selected");
  const auto train = static_cast<Eigen::Index>(train_rows);
  Eigen::MatrixXd x(train, static_cast<Eigen::Index>(c.features.size()));
  for (std::size_t k = 0; k < c.features.size(); ++k)
    x.col(static_cast<Eigen::Index>(k)) =
        data.x.col(static_cast<Eigen::Index>(c.features[k])).head(train);
  c.standardizer = learn::fit_standardizer(x);
  c.logistic = fit_logistic(learn::standardize(c.standardizer, x), data.y.head(train), 1e-3);
  return c;
}

double predictable_probability(const PredictabilityClassifier& c, std::span<const double> row) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(c.features.size()));
  for (std::size_t k = 0; k < c.features.size(); ++k)
    x(static_cast<Eigen::Index>(k)) = row[c.features[k]];
  return logistic_probability(c.logistic, learn::standardize_row(c.standardizer, x));
}

std::string predictability_classifier_text(const PredictabilityClassifier& c) {
  std::string out = fmt::format("{}\nmodel logistic\nfeatures", kMagic);
  for (std::size_t f : c.features)
    out += " " + predictability_feature_names()[f];
  out += '\n';
  put_vector(out, "mean", c.standardizer.mean);
  put_vector(out, "scale", c.standardizer.scale);
  out += fmt::format("bias {}\n", c.logistic.bias);
  put_vector(out, "weights", c.logistic.weights);
  return out;
}

PredictabilityClassifier parse_predictability_classifier(std::string_view text,
                                                         const std::string& name) {
  Lines in(text, name);
  if (in.at_end()) in.fail(1, fmt::format("empty file; expected '{}'", kMagic));
  {
    const Line& first = in.peek();
    if (fmt::format("{}", fmt::join(first.words, " ")) != kMagic)
      in.fail(first.number, fmt::format("not a dlsim predictability classifier (expected '{}', "
                                        "written by dlsim-predictability --out)",
                                        kMagic));
    (void)in.expect(first.words[0]);
  }
  const Line& model = in.expect("model");
  if (model.words.size() != 2 || model.words[1] != "logistic")
    in.fail(model.number, "model: expected 'logistic'");
  PredictabilityClassifier c;
  const Line& features = in.expect("features");
  const std::vector<std::string>& names = predictability_feature_names();
  for (std::size_t i = 1; i < features.words.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), features.words[i]);
    if (it == names.end())
      in.fail(features.number, fmt::format("features: unknown feature {} (expected some of: {})",
                                           quote_input(features.words[i]), fmt::join(names, " ")));
    const auto f = static_cast<std::size_t>(it - names.begin());
    if (std::find(c.features.begin(), c.features.end(), f) != c.features.end())
      in.fail(features.number,
              fmt::format("features: {} is given twice", quote_input(features.words[i])));
    c.features.push_back(f);
  }
  if (c.features.empty()) in.fail(features.number, "features: expected at least one feature");
  const std::size_t n = c.features.size();
  c.standardizer.mean = in.vector("mean", n);
  c.standardizer.scale = in.vector("scale", n, /*positive=*/true);
  const Line& bias = in.expect("bias");
  if (bias.words.size() != 2) in.fail(bias.number, "bias: expected one number");
  c.logistic.bias = in.number(bias, 1);
  c.logistic.weights = in.vector("weights", n);
  if (!in.at_end())
    in.fail(in.peek().number,
            fmt::format("unexpected {} after the model", quote_input(in.peek().words[0])));
  return c;
}

} // namespace dlsim
