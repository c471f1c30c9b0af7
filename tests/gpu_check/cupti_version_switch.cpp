// Compiled (not run) once per CUPTI version by the cupti_version_* tests: the record
// structs cupti_records.hpp picks for VITALS_CUPTI_API_VERSION are the expected ones.
#include <type_traits>

#include "cupti_records.hpp"

static_assert(std::is_same_v<vitals::cuda_parts::KernelRecord, EXPECT_KERNEL>);
static_assert(std::is_same_v<vitals::cuda_parts::MemcpyRecord, EXPECT_MEMCPY>);
static_assert(std::is_same_v<vitals::cuda_parts::MemsetRecord, CUpti_ActivityMemset4>);
