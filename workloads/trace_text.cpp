#include "workloads/trace_text.h"

#include "sim/engine/error.h"
#include "sim/engine/utf8.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace dlsim {

void check_trace_text(const Trace& trace) {
  // The tables' strings are few: each is checked once, and a bad one is reported at the first
  // job that uses it.
  struct Column {
    const char* name;
    const StringTable& table;
    std::uint32_t TraceJob::*field;
    std::vector<char> bad;
  };
  std::vector<Column> columns;
  for (auto [name, table, field] :
       {std::tuple{"user", &trace.users, &TraceJob::user},
        std::tuple{"queue", &trace.queues, &TraceJob::queue},
        std::tuple{"model", &trace.models, &TraceJob::model},
        std::tuple{"device_type", &trace.device_types, &TraceJob::device_type},
        std::tuple{"observed device type", &trace.device_types, &TraceJob::observed_type}}) {
    Column c{name, *table, field, std::vector<char>(table->names().size(), 0)};
    bool any = false;
    for (std::size_t i = 0; i < c.bad.size(); ++i) {
      c.bad[i] =
          invalid_utf8_offset(table->at(static_cast<std::uint32_t>(i))) != std::string_view::npos;
      any = any || c.bad[i] != 0;
    }
    if (any) columns.push_back(std::move(c));
  }
  for (const TraceJob& job : trace.jobs) {
    std::string problem = utf8_problem(trace.name(job));
    const char* column = "id";
    std::string_view text = trace.name(job);
    for (const Column& c : columns) {
      if (!problem.empty()) break;
      const std::uint32_t id = job.*c.field;
      if (id != kNoString && id < c.bad.size() && c.bad[id] != 0) {
        column = c.name;
        text = c.table.at(id);
        problem = utf8_problem(text);
      }
    }
    if (!problem.empty()) {
      throw InputError(fmt::format("{}:{}: {}: {}: {}", trace.file, job.line, column,
                                   quote_input(text, 60), problem));
    }
  }
}

} // namespace dlsim
