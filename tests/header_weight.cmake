# What a user compiles for the Timer alone: a file that includes only <vitals/timer.hpp>
# preprocesses to fewer than MAX_LINES lines (it once pulled in the whole profiler).
execute_process(
    COMMAND ${CXX} -std=c++20 -E -x c++ - -I${SOURCE_DIR}/timer/include -I${SOURCE_DIR}/stats/include
            -I${SOURCE_DIR}/profiler_bridge/include -I${SOURCE_DIR}/platform/include
    INPUT_FILE ${SOURCE_DIR}/tests/header_weight_timer.cpp
    OUTPUT_VARIABLE preprocessed
    RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "preprocessing <vitals/timer.hpp> failed: ${status}")
endif()
string(REGEX MATCHALL "\n" newlines "${preprocessed}")
list(LENGTH newlines lines)
message(STATUS "<vitals/timer.hpp> preprocesses to ${lines} lines")
if(lines GREATER_EQUAL MAX_LINES)
    message(FATAL_ERROR "<vitals/timer.hpp> preprocesses to ${lines} lines, at least ${MAX_LINES}: keep heavy headers out of it")
endif()
