# Builds and runs tests/consumer, an outside project, against vitals brought in one way:
#   HOW=package       installs the build tree (VITALS_BINARY_DIR) into a scratch prefix,
#                     then find_package(vitals) with COMPONENTS timer, timer cuda (CUDA
#                     builds) and none (vitals::vitals), and pkg-config (vitals-timer,
#                     vitals)
#   HOW=subdirectory  add_subdirectory(VITALS_SOURCE_DIR), consumer in Debug
#   HOW=fetchcontent  FetchContent from VITALS_SOURCE_DIR, consumer with no build type
# and checks that vitals behaves as a guest: the consumer's build type stays its own, no
# CUDA language, none of vitals' programs or compile options in the consumer's build,
# from source only the parts the consumer links, and a program that times CPU code needs
# no CUDA library.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
if(PREFIX_PATH)  # where the vitals build found its packages
    set(ENV{CMAKE_PREFIX_PATH} "${PREFIX_PATH}:$ENV{CMAKE_PREFIX_PATH}")
endif()

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc)
        string(JOIN " " command ${ARGN})
        message(FATAL_ERROR "${command} failed (${rc}):\n${out}")
    endif()
    set(out "${out}" PARENT_SCOPE)
endfunction()

# Configures and builds the consumer in WORK_DIR/<name>; `out` holds its run's output.
function(build_consumer name build_type)
    set(dir ${WORK_DIR}/${name})
    set(type_arg "")
    if(build_type)
        set(type_arg -DCMAKE_BUILD_TYPE=${build_type})
    endif()
    run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${dir} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${type_arg} ${ARGN})
    # The consumer's whole build (`all`): a guest adds only what the consumer links.
    run(${CMAKE_COMMAND} --build ${dir} -j 2)

    file(STRINGS ${dir}/CMakeCache.txt type_line REGEX "^CMAKE_BUILD_TYPE:")
    if(NOT type_line STREQUAL "CMAKE_BUILD_TYPE:STRING=${build_type}")
        message(FATAL_ERROR "${name}: the consumer's build type changed from '${build_type}' to: ${type_line}")
    endif()
    file(STRINGS ${dir}/CMakeCache.txt cuda_lines REGEX "^CMAKE_CUDA_")
    if(cuda_lines)
        message(FATAL_ERROR "${name}: the CUDA language was enabled in the consumer:\n${cuda_lines}")
    endif()
    file(GLOB_RECURSE programs ${dir}/*/vitals ${dir}/*/vitals_*)
    list(FILTER programs EXCLUDE REGEX "/CMakeFiles/|\\.(a|so|cmake)$")
    if(programs)
        message(FATAL_ERROR "${name}: vitals' programs were built in the consumer's build: ${programs}")
    endif()
    # vitals' directory-wide options stay in its own directories.
    file(READ ${dir}/compile_commands.json commands)
    string(REGEX MATCH "\"command\": \"[^\"]*\",[^}]*tests/consumer/[a-z_]+\\.cpp" consumer_command "${commands}")
    if(NOT consumer_command MATCHES "-Werror")
        message(FATAL_ERROR "${name}: no compile command for the consumer's own source:\n${commands}")
    endif()
    if(consumer_command MATCHES "-Wno-missing-field-initializers|-march=|-fsanitize")
        message(FATAL_ERROR "${name}: vitals' compile options reached the consumer's code:\n${consumer_command}")
    endif()

    run(${dir}/consumer ${run_args})
    set(out "${out}" PARENT_SCOPE)
endfunction()

# The binary of a program that only times CPU code: no CUDA library, no CUDA symbol.
function(check_cpu_only name)
    set(program ${WORK_DIR}/${name}/consumer)
    run(readelf -d ${program})
    if(out MATCHES "NEEDED[^\n]*(cudart|cupti|cublas|nvToolsExt|libcuda)")
        message(FATAL_ERROR "${name}: a timer-only program needs a CUDA library:\n${out}")
    endif()
    run(ldd ${program})
    if(out MATCHES "cudart|cupti|cublas|libcuda")
        message(FATAL_ERROR "${name}: a timer-only program loads a CUDA library:\n${out}")
    endif()
    run(nm ${program})
    if(out MATCHES "[ \n](cuda[A-Z][A-Za-z]*|cupti[A-Z][A-Za-z]*|nvtx[A-Z][A-Za-z]*|vitals_cuda_link_anchor)")
        message(FATAL_ERROR "${name}: a timer-only program links CUDA code (${CMAKE_MATCH_1})")
    endif()
endfunction()

# From source, the consumer's `all` built the Timer's parts and nothing else of vitals.
function(check_only_linked_parts name)
    file(GLOB_RECURSE archives RELATIVE ${WORK_DIR}/${name} ${WORK_DIR}/${name}/*libvitals_*)
    list(TRANSFORM archives REPLACE ".*/" "")
    list(SORT archives)
    set(expected libvitals_platform.a libvitals_profiler_bridge.a libvitals_stats.a libvitals_timer.a)
    if(NOT archives STREQUAL expected)
        message(FATAL_ERROR "${name}: a program that links vitals::timer built ${archives}; expected ${expected}")
    endif()
endfunction()

function(check_timer_output name)
    if(NOT out MATCHES "sqrt: scalar\n[^\n]*\n?  Median: ")
        message(FATAL_ERROR "${name}: the consumer printed no measurement:\n${out}")
    endif()
endfunction()

if(HOW STREQUAL "package")
    set(prefix ${WORK_DIR}/prefix)
    run(${CMAKE_COMMAND} --install ${VITALS_BINARY_DIR} --prefix ${prefix})
    foreach(expected include/vitals/vitals.hpp include/vitals/version.hpp bin/vitals
                     lib/cmake/vitals/vitalsConfig.cmake lib/pkgconfig/vitals.pc lib/pkgconfig/vitals-timer.pc)
        if(NOT EXISTS ${prefix}/${expected})
            message(FATAL_ERROR "install is missing ${expected}")
        endif()
    endforeach()
    # The parts' internal headers stay in the source tree.
    file(GLOB_RECURSE internal RELATIVE ${prefix}/include ${prefix}/include/*)
    list(FILTER internal INCLUDE REGEX "internal/|/(process|json_depth|checked_number)\\.hpp$")
    if(internal)
        message(FATAL_ERROR "install has internal headers: ${internal}")
    endif()

    # The Timer alone: find_package(vitals COMPONENTS timer), links vitals::timer.
    build_consumer(package-timer Release -DCMAKE_PREFIX_PATH=${prefix} -DVITALS_PARTS=timer)
    check_timer_output(package-timer)
    if(HAS_CUDA)
        set(expected "this program was not linked with vitals::cuda")
    else()
        set(expected "vitals was built without CUDA")
    endif()
    if(NOT out MATCHES "device: Timer: .cuda_stream was given but ${expected}")
        message(FATAL_ERROR "package-timer: no clear reason for the missing device clock:\n${out}")
    endif()
    check_cpu_only(package-timer)

    if(HAS_CUDA)
        # The Timer and the CUDA component: the hooks are installed before main.
        build_consumer(package-timer-cuda Release -DCMAKE_PREFIX_PATH=${prefix} -DVITALS_PARTS=timer+cuda)
        check_timer_output(package-timer-cuda)
        if(NOT out MATCHES "built_with_cuda: 1\n" OR out MATCHES "not linked with vitals::cuda")
            message(FATAL_ERROR "package-timer-cuda: vitals::cuda's hooks were not installed:\n${out}")
        endif()
        set(cuda_out "${out}")
        run(readelf -d ${WORK_DIR}/package-timer-cuda/consumer)
        set(needed "${out}")
        run(nm ${WORK_DIR}/package-timer-cuda/consumer)
        # CUDA::cudart is the shared runtime; a static one would leave its symbols instead.
        if(NOT needed MATCHES "NEEDED[^\n]*libcudart" AND NOT out MATCHES " cudaEventRecord")
            message(FATAL_ERROR "package-timer-cuda: the CUDA runtime is not linked:\n${needed}")
        endif()
        if(NOT out MATCHES "vitals_cuda_link_anchor")
            message(FATAL_ERROR "package-timer-cuda: vitals::cuda's hooks were dropped by the linker")
        endif()
        message(STATUS "timer + cuda consumer:\n${cuda_out}")
    else()
        # A build without CUDA has no cuda component, and says so.
        execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/package-no-cuda
                -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DVITALS_PARTS=timer+cuda
            RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
        if(NOT rc OR NOT out MATCHES "built[ \n]+without[ \n]+CUDA")
            message(FATAL_ERROR "package-no-cuda: COMPONENTS cuda of a build without CUDA did not fail clearly:\n${out}")
        endif()
    endif()

    # Everything: find_package(vitals), links vitals::vitals, registers a case.
    set(run_args list)
    build_consumer(package-all Release -DCMAKE_PREFIX_PATH=${prefix})
    if(NOT out MATCHES "sqrt\n.*consumer/sqrt\n")
        message(FATAL_ERROR "the consumer of vitals::vitals ran wrongly:\n${out}")
    endif()
    # The installed vitals_discover_cases: a ctest test per case, the one that cannot run skipped.
    run(${CMAKE_COMMAND} --build ${WORK_DIR}/package-all --target consumer_cases)
    get_filename_component(cmake_bin ${CMAKE_COMMAND} DIRECTORY)
    run(${cmake_bin}/ctest --test-dir ${WORK_DIR}/package-all)
    if(NOT out MATCHES "consumer:consumer_cases/sqrt [.]+ +Passed"
       OR NOT out MATCHES "consumer:consumer_cases/elsewhere [.]+[*]+Skipped")
        message(FATAL_ERROR "the consumer's cases did not become ctest tests:\n${out}")
    endif()
    run(${prefix}/bin/vitals list)
    if(NOT out MATCHES "matmul/128x128/cpu-f32")
        message(FATAL_ERROR "the installed vitals executable failed:\n${out}")
    endif()
    run(${prefix}/bin/vitals --version)
    if(NOT out MATCHES "^vitals [0-9]+\\.[0-9]+\\.[0-9]+\n$")
        message(FATAL_ERROR "the installed vitals executable gave no version:\n${out}")
    endif()

    # Without CMake: the same programs built with pkg-config's flags from the installed
    # .pc files, the Timer alone (vitals-timer) and everything (vitals).
    find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
    set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
    file(GLOB pc_files RELATIVE ${prefix}/lib/pkgconfig ${prefix}/lib/pkgconfig/*.pc)
    string(REPLACE ".pc" "" pc_names "${pc_files}")
    run(${PKG_CONFIG} --print-errors --exists ${pc_names})  # every Requires resolves
    foreach(pc IN ITEMS vitals-timer vitals)
        run(${PKG_CONFIG} --cflags --libs ${pc})
        separate_arguments(flags UNIX_COMMAND "${out}")
        if(pc STREQUAL "vitals")
            set(source main.cpp)
            set(run_args list)
        else()
            set(source timer_only.cpp)
            set(run_args "")
        endif()
        file(MAKE_DIRECTORY ${WORK_DIR}/pkgconfig-${pc})
        run(${CXX_COMPILER} -std=c++20 -O2 -Wall -Wextra -Werror ${CONSUMER_SOURCE_DIR}/${source}
            -o ${WORK_DIR}/pkgconfig-${pc}/consumer ${flags})
        run(${WORK_DIR}/pkgconfig-${pc}/consumer ${run_args})
        if(pc STREQUAL "vitals-timer")
            check_timer_output(pkgconfig-vitals-timer)
        elseif(NOT out MATCHES "consumer/sqrt\n")
            message(FATAL_ERROR "the consumer built with pkg-config's vitals flags ran wrongly:\n${out}")
        endif()
    endforeach()
    check_cpu_only(pkgconfig-vitals-timer)
elseif(HOW STREQUAL "subdirectory")
    build_consumer(subdirectory-timer Debug -DVITALS_HOW=subdirectory -DVITALS_SOURCE=${VITALS_SOURCE_DIR}
        -DVITALS_PARTS=timer -DVITALS_FMT_HEADER_ONLY=${FMT_HEADER_ONLY})
    check_timer_output(subdirectory-timer)
    check_cpu_only(subdirectory-timer)
    check_only_linked_parts(subdirectory-timer)
elseif(HOW STREQUAL "fetchcontent")
    build_consumer(fetchcontent-timer "" -DVITALS_HOW=fetchcontent -DVITALS_SOURCE=${VITALS_SOURCE_DIR}
        -DVITALS_PARTS=timer -DVITALS_FMT_HEADER_ONLY=${FMT_HEADER_ONLY})
    check_timer_output(fetchcontent-timer)
    check_cpu_only(fetchcontent-timer)
    check_only_linked_parts(fetchcontent-timer)
else()
    message(FATAL_ERROR "HOW: package, subdirectory or fetchcontent")
endif()
message(STATUS "consumer (${HOW}) built, ran and links as expected")
