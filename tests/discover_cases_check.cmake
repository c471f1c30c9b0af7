# Checks the tests vitals_discover_cases registered (tests/CMakeLists.txt) as ctest sees
# them: one per case, each running that case alone with `run --dry-run`, skipped on the
# dry run's line for a skipped case, and the properties given.
#   cmake -DCTEST=ctest -DBUILD_DIR=build -P discover_cases_check.cmake
execute_process(COMMAND ${CTEST} --test-dir ${BUILD_DIR} --show-only=json-v1 -R "^cases:"
    RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(rc)
    message(FATAL_ERROR "ctest --show-only=json-v1 failed (${rc}): ${err}")
endif()

set(odd [=[plain/a.b+c(1)[2]{3}|d^e$f?g*h\i;j"k]=])
set(expected
    "cases:fixture_bench:fixture/sqrt" "cases:fixture_bench:fixture/needs-gpu" "cases:fixture_bench:fixture/family/1"
    "cases:fixture_bench:fixture/family/2" "cases:fixture_bench_fails:fixture/throws" "cases:skipped_family_bench:plain/1"
    "cases:skipped_family_bench:needs_widget/1" "cases:skipped_family_bench:plain/open_1"
    "cases:skipped_family_bench:plain/close_2")
string(JSON count LENGTH "${json}" tests)
set(seen "")
set(odd_seen FALSE)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
    string(JSON name GET "${json}" tests ${i} name)
    string(JSON arguments LENGTH "${json}" tests ${i} command)
    set(command "")
    math(EXPR last_argument "${arguments} - 1")
    foreach(a RANGE 1 ${last_argument})
        string(JSON argument GET "${json}" tests ${i} command ${a})
        string(APPEND command " ${argument}")
    endforeach()
    if(name STREQUAL "cases:skipped_family_bench:${odd}")
        set(odd_seen TRUE)
        # Every metacharacter escaped, the ';' kept: the regex matches this name alone.
        set(want [=[ run --dry-run --filter ^plain/a\.b\+c\(1\)\[2\]\{3\}\|d\^e\$f\?g\*h\\i;j"k$]=])
    elseif(name STREQUAL "cases:skipped_family_bench:plain/open[1")
        list(APPEND seen "cases:skipped_family_bench:plain/open_1")  # a '[' would group the list's items
        set(want [=[ run --dry-run --filter ^plain/open\[1$]=])
    elseif(name STREQUAL "cases:skipped_family_bench:plain/close]2")
        list(APPEND seen "cases:skipped_family_bench:plain/close_2")
        set(want [=[ run --dry-run --filter ^plain/close\]2$]=])
    else()
        string(REGEX REPLACE "^cases:[a-z_]+:" "" case_name "${name}")
        list(APPEND seen "${name}")
        set(want " run --dry-run --filter ^${case_name}$")
    endif()
    if(NOT command STREQUAL want)
        message(FATAL_ERROR "${name} runs '${command}', not '${want}'")
    endif()
    string(JSON properties GET "${json}" tests ${i} properties)
    if(NOT properties MATCHES "\"SKIP_REGULAR_EXPRESSION\"[^]]*\"\\\\ndry run: 1 case, 0 ok, 1 skipped, 0 failed\\\\n\"")
        message(FATAL_ERROR "${name} is not skipped on the dry run's skipped line: ${properties}")
    endif()
    if(name MATCHES "_fails:" AND NOT properties MATCHES "\"WILL_FAIL\"")
        message(FATAL_ERROR "${name} lost its PROPERTIES: ${properties}")
    endif()
endforeach()
list(SORT seen)
list(SORT expected)
if(NOT seen STREQUAL expected OR NOT odd_seen)
    message(FATAL_ERROR "the discovered tests are\n  ${seen} (odd name seen: ${odd_seen})\nnot\n  ${expected}")
endif()
message(STATUS "${count} case tests registered as expected")
