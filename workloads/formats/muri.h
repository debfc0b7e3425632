// Muri's job lists (Rivendile/Muri simulator/trace-data; Zhao et al., "Multi-Resource
// Interleaving for Deep Learning Training", SIGCOMM'22): the Tiresias CSV plus batch_size,
// iteration_time, resource_time_0..2 and priority, every time in milliseconds
// (docs/traces.md#muri).
#pragma once

#include "workloads/trace.h"

#include <string>
#include <string_view>

namespace dlsim {

Trace read_muri_trace(const std::string& file, const ReadOptions& options);

// Muri's model names as zoo names: bert is BERT-base (the zoo's bert_base); the others as
// Tiresias names them (tiresias_model_to_zoo).
std::string_view muri_model_to_zoo(std::string_view name);

} // namespace dlsim
