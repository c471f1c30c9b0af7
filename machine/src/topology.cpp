// What this machine is: host, CPU model, usable cores, cache levels, vector width.
#include <sched.h>
#include <unistd.h>

#include "probes.hpp"
#include "vitals/cpu_info.hpp"
#include "vitals/machine.hpp"

namespace vitals::machine {

std::vector<CacheInfo> core0_caches() { return vitals::core0_caches(); }

Identity identify() {
    Identity id;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    id.host = host;
    id.cpu_model = cpu_info().model;
    cpu_set_t set;
    id.cores = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    for (const CacheInfo& c : core0_caches()) {
        if (c.type != "Instruction" && c.level > 0 && c.bytes > 0) id.caches.push_back({c.level, c.bytes, c.cores_sharing});
    }
    id.vector_isa = detail::vector_isa();
    return id;
}

}  // namespace vitals::machine
