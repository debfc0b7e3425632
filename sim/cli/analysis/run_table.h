// `dlsim table RUN_DIR...`: one row per run with its policy, the parameters that tell the runs
// apart and its metrics, as aligned text, CSV, Markdown or LaTeX (docs/outputs.md#dlsim-table).
#pragma once

#include <string>
#include <vector>

namespace dlsim {

struct RunTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows; // as the files wrote the values
  // Per cell: a lower bound (a censored JCT, queueing or makespan figure), shown with `>` in
  // text and Markdown.
  std::vector<std::vector<bool>> lower_bound;
  std::vector<bool> numeric; // per column: every non-empty value is a number
};

// The metrics shown when none are asked for.
std::vector<std::string> default_table_metrics();

// Reads each directory's summary.json and run.yaml. Columns: run (the directory's name),
// policy, seed, then every run.yaml key (dotted path, e.g. trace.file, cluster.nodes.0.count)
// whose value differs among the runs, then `metrics` (summary.json keys, nested ones dotted as
// in `dlsim compare`). A metric no run has is an error; one some runs lack is empty there. A
// policy.params key is compared only among the runs that have it (runs of different policies
// add no parameter columns). `columns`, when not empty, are the columns shown instead, in that
// order: any of those, or any run.yaml or summary.json key. When
// some run did not finish its jobs, an `outcome` column after seed says how each ended
// (complete, unfinished, deadlocked at T s), and the rows are ordered complete runs first, then
// runs stopped with jobs unfinished, then deadlocked ones (each group in the order given): a
// run's censored times never place it above a run that finished its jobs.
RunTable build_run_table(const std::vector<std::string>& dirs,
                         const std::vector<std::string>& metrics,
                         const std::vector<std::string>& columns = {});

// "text": aligned columns, numbers right-aligned and rounded for reading (seconds to 0.1,
// other fractions to 4 decimals); "csv": RFC 4180, values exactly as in the files; "markdown":
// a GitHub table, rounded like text; "latex": a booktabs tabular, rounded like text.
std::string format_run_table(const RunTable& table, const std::string& format);

} // namespace dlsim
