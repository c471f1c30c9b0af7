// Installs vitals::cuda's hooks before main. vitals::cuda's usage requirements make the
// linker keep this file (--undefined of the anchor below), so that a program linking
// vitals::cuda from a static archive gets its hooks without calling anything.
#include "parts.hpp"
#include "vitals/profiler/plug_points.hpp"

extern "C" int vitals_cuda_link_anchor;
int vitals_cuda_link_anchor = 0;

namespace vitals::cuda_parts {
namespace {

bool install() {
    install_cuda_hooks({
        .unavailable_reason = unavailable_reason,
        .time_on_stream = time_on_stream,
        .synchronize_stream = synchronize_stream,
    });
    profiler::detail::device_activity::install_hooks({
        .start = cupti_start,
        .stop = cupti_stop,
        .synchronize = device_synchronize,
        .push_external_id = cupti_push_external_id,
        .pop_external_id = cupti_pop_external_id,
        .nvtx_push = nvtx_push,
        .nvtx_pop = nvtx_pop,
    });
    return true;
}

[[maybe_unused]] const bool installed = install();

}  // namespace
}  // namespace vitals::cuda_parts
