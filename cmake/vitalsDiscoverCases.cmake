# vitals_discover_cases(TARGET [FILTER REGEX] [PREFIX TEXT] [AXES NAME=V1,V2 ...]
#                       [PROPERTIES NAME VALUE ...] [DISCOVERY_TIMEOUT SECONDS])
#
# Registers a ctest test per case of a benchmark program (one with VITALS_MAIN), as
# gtest_discover_tests does for GoogleTest: after TARGET is built, `TARGET list --names`
# names its cases (those matching FILTER, a regular expression in RE2's syntax; with the
# AXES given as --axis), and each case NAME becomes the test PREFIX + NAME running
#     TARGET run --dry-run --filter '^NAME$'   (NAME's regex characters escaped)
# which calls the case once. A case that cannot run here is shown as skipped by ctest;
# a failed case fails its test. PROPERTIES are set on every test.
#
# This file is also a script: the build runs it with -P to write the tests of one call.

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED VITALS_DISCOVER_PROGRAM)
    include("${VITALS_DISCOVER_PARAMS}")  # _vitals_* of the call, written at configure time
    set(_vitals_axis_args "")
    foreach(_vitals_axis IN LISTS _vitals_axes)
        list(APPEND _vitals_axis_args --axis "${_vitals_axis}")
    endforeach()
    set(_vitals_filter_args "")
    if(NOT _vitals_filter STREQUAL "")
        set(_vitals_filter_args --filter "${_vitals_filter}")
    endif()
    execute_process(COMMAND "${VITALS_DISCOVER_PROGRAM}" list --names ${_vitals_filter_args} ${_vitals_axis_args}
        RESULT_VARIABLE _vitals_rc OUTPUT_VARIABLE _vitals_out ERROR_VARIABLE _vitals_err
        TIMEOUT ${_vitals_timeout})
    if(NOT _vitals_rc STREQUAL "0")
        file(REMOVE "${VITALS_DISCOVER_CTEST_FILE}")
        message(FATAL_ERROR "vitals_discover_cases: '${VITALS_DISCOVER_PROGRAM} list --names' failed (${_vitals_rc}); "
                            "its cases cannot be registered as tests:\n${_vitals_err}")
    endif()

    # A bracket argument for any text: its "=" run longer than any "]=...=]" inside.
    function(_vitals_bracket text out)
        set(eq "=")
        while(text MATCHES "\\]${eq}\\]")
            string(APPEND eq "=")
        endwhile()
        set(${out} "[${eq}[${text}]${eq}]" PARENT_SCOPE)
    endfunction()

    set(_vitals_properties "")
    foreach(_vitals_value IN LISTS _vitals_user_properties)
        _vitals_bracket("${_vitals_value}" _vitals_quoted)
        string(APPEND _vitals_properties " ${_vitals_quoted}")
    endforeach()
    _vitals_bracket("${VITALS_DISCOVER_PROGRAM}" _vitals_program)
    set(_vitals_axes_text "")
    foreach(_vitals_axis IN LISTS _vitals_axes)
        _vitals_bracket("${_vitals_axis}" _vitals_quoted)
        string(APPEND _vitals_axes_text " --axis ${_vitals_quoted}")
    endforeach()
    # Case names have no white space and no control characters (the registry refuses
    # them). A ';' would split a CMake list and a '[' or ']' group its items: they travel
    # as \x01, \x02 and \x03.
    string(ASCII 1 _vitals_semicolon)
    string(ASCII 2 _vitals_open)
    string(ASCII 3 _vitals_close)
    string(REPLACE ";" "${_vitals_semicolon}" _vitals_out "${_vitals_out}")
    string(REPLACE "[" "${_vitals_open}" _vitals_out "${_vitals_out}")
    string(REPLACE "]" "${_vitals_close}" _vitals_out "${_vitals_out}")
    string(REGEX MATCHALL "[^\n]+" _vitals_names "${_vitals_out}")
    set(_vitals_script "# Written by vitals_discover_cases from '${VITALS_DISCOVER_PROGRAM} list --names'.\n")
    foreach(_vitals_name IN LISTS _vitals_names)
        string(REPLACE "${_vitals_semicolon}" ";" _vitals_name "${_vitals_name}")
        string(REPLACE "${_vitals_open}" "[" _vitals_name "${_vitals_name}")
        string(REPLACE "${_vitals_close}" "]" _vitals_name "${_vitals_name}")
        # RE2's metacharacters escaped, so that the filter matches this name alone.
        string(REGEX REPLACE "([][\\^$.|?*+(){}])" "\\\\\\1" _vitals_regex "${_vitals_name}")
        _vitals_bracket("${_vitals_prefix}${_vitals_name}" _vitals_test)
        _vitals_bracket("^${_vitals_regex}$" _vitals_regex)
        string(APPEND _vitals_script
            "add_test(${_vitals_test} ${_vitals_program} run --dry-run --filter ${_vitals_regex}${_vitals_axes_text})\n"
            "set_tests_properties(${_vitals_test} PROPERTIES SKIP_REGULAR_EXPRESSION "
            "\"\\n${_vitals_skipped_line}\\n\"${_vitals_properties})\n")
    endforeach()
    file(WRITE "${VITALS_DISCOVER_CTEST_FILE}" "${_vitals_script}")
    return()
endif()

function(vitals_discover_cases target)
    # This file, wherever the function is called from (variables set beside it would not
    # reach a project that brought vitals in with add_subdirectory).
    set(script "${CMAKE_CURRENT_FUNCTION_LIST_FILE}")
    # The summary line of `run --dry-run` for one case that was skipped (runner/src/dry_run.hpp),
    # matched as a whole line: a failed case's message (one line, after the case's name)
    # that holds the same words is not a skip.
    set(skipped_line "dry run: 1 case, 0 ok, 1 skipped, 0 failed")
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "FILTER;PREFIX;DISCOVERY_TIMEOUT" "AXES;PROPERTIES")
    if(arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "vitals_discover_cases(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}; it takes "
                            "FILTER, PREFIX, AXES, PROPERTIES and DISCOVERY_TIMEOUT")
    endif()
    if(NOT TARGET ${target})
        message(FATAL_ERROR "vitals_discover_cases: '${target}' is no target; give the benchmark program's target")
    endif()
    if(NOT arg_DISCOVERY_TIMEOUT)
        set(arg_DISCOVERY_TIMEOUT 60)
    endif()
    # One pair of files per call, so that a target may be discovered twice (other filters).
    string(MD5 call "${arg_FILTER}|${arg_PREFIX}|${arg_AXES}|${arg_PROPERTIES}")
    string(SUBSTRING "${call}" 0 8 call)
    set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}_${call}_vitals")
    set(params "${base}_params.cmake")
    set(ctest_file "${base}_tests.cmake")
    set(include_file "${base}_include.cmake")

    set(content "")
    foreach(var filter prefix timeout)
        string(TOUPPER "${var}" key)
        if(var STREQUAL "timeout")
            set(key DISCOVERY_TIMEOUT)
        endif()
        string(APPEND content "set(_vitals_${var} [==[${arg_${key}}]==])\n")
    endforeach()
    string(APPEND content "set(_vitals_skipped_line [==[${skipped_line}]==])\n")
    foreach(list_var axes user_properties)
        set(source ${arg_AXES})
        if(list_var STREQUAL "user_properties")
            set(source ${arg_PROPERTIES})
        endif()
        string(APPEND content "set(_vitals_${list_var})\n")
        foreach(item IN LISTS source)
            string(APPEND content "list(APPEND _vitals_${list_var} [==[${item}]==])\n")
        endforeach()
    endforeach()
    file(WRITE "${params}" "${content}")

    add_custom_command(TARGET ${target} POST_BUILD
        BYPRODUCTS "${ctest_file}"
        COMMAND "${CMAKE_COMMAND}" "-DVITALS_DISCOVER_PROGRAM=$<TARGET_FILE:${target}>"
                "-DVITALS_DISCOVER_PARAMS=${params}" "-DVITALS_DISCOVER_CTEST_FILE=${ctest_file}"
                -P "${script}"
        COMMENT "Listing the cases of ${target} for ctest"
        VERBATIM)
    # Read by ctest: the tests once the program was built, else one test that says so.
    file(WRITE "${include_file}"
        "if(EXISTS [==[${ctest_file}]==])\n"
        "  include([==[${ctest_file}]==])\n"
        "else()\n"
        "  add_test([==[${target}_NOT_BUILT]==] [==[${target}_NOT_BUILT]==])\n"
        "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
