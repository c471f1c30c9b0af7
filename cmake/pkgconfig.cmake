# pkg-config files for builds that do not use CMake: vitals.pc (everything, as
# vitals::vitals) and vitals-<part>.pc (vitals-timer.pc: the Timer and what it links).
# The parts are static libraries, so each file names every library its part links, its
# own and the packages', not only those its headers use. Packages that are headers only
# to vitals' sources (nlohmann_json, Eigen, Boost, CLI11) are left out: no public header
# includes them. Installed under <libdir>/pkgconfig; the files find the tree from their
# own place (${pcfiledir}), so an installed tree can be moved.

if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(VITALS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
    # One ".." for each folder of <libdir>/pkgconfig.
    set(VITALS_PC_PREFIX "\${pcfiledir}")
    string(REGEX MATCHALL "[^/]+" vitals_pc_folders "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
    foreach(folder IN LISTS vitals_pc_folders)
        string(APPEND VITALS_PC_PREFIX "/..")
    endforeach()
endif()

# fmt is a library unless vitals was built with it header-only.
if(VITALS_FMT_HEADER_ONLY)
    set(VITALS_PC_FMT "")
else()
    set(VITALS_PC_FMT fmt)
endif()
set(VITALS_PC_OPENMP ${OpenMP_CXX_FLAGS})
set(VITALS_PC_THREADS "")
if(CMAKE_THREAD_LIBS_INIT)
    set(VITALS_PC_THREADS ${CMAKE_THREAD_LIBS_INIT})
endif()
set(VITALS_PC_DL "")
foreach(lib IN LISTS CMAKE_DL_LIBS)
    list(APPEND VITALS_PC_DL -l${lib})
endforeach()

set(VITALS_PC_FILES "")
# vitals_pkgconfig(<file name> <description> LIBRARY <archive> PARTS <file names> PACKAGES <.pc names> LIBS <flags>)
function(vitals_pkgconfig name description)
    cmake_parse_arguments(ARG "" "LIBRARY" "PARTS;PACKAGES;LIBS" ${ARGN})
    set(requires ${ARG_PARTS} ${ARG_PACKAGES})
    list(JOIN requires " " requires)
    set(libs "")
    if(ARG_LIBRARY)
        set(libs "-L\${libdir} -l${ARG_LIBRARY}")
    endif()
    list(JOIN ARG_LIBS " " extra)
    string(STRIP "${libs} ${extra}" libs)
    set(file ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc)
    file(CONFIGURE OUTPUT ${file} @ONLY CONTENT [[prefix=@VITALS_PC_PREFIX@
includedir=${prefix}/@CMAKE_INSTALL_INCLUDEDIR@
libdir=${prefix}/@CMAKE_INSTALL_LIBDIR@

Name: @name@
Description: @description@
Version: @PROJECT_VERSION@
Requires: @requires@
Cflags: -I${includedir}
Libs: @libs@
]])
    set(VITALS_PC_FILES ${VITALS_PC_FILES} ${file} PARENT_SCOPE)
endfunction()

vitals_pkgconfig(vitals-platform "vitals: atomic output files, threads, running programs, CPU facts"
    LIBRARY vitals_platform PACKAGES ${VITALS_PC_FMT} LIBS ${VITALS_PC_OPENMP} ${VITALS_PC_DL})
vitals_pkgconfig(vitals-stats "vitals: statistics and significance tests" LIBRARY vitals_stats)
vitals_pkgconfig(vitals-machine "vitals: this machine's bandwidth and peak FLOP/s" LIBRARY vitals_machine
    PARTS vitals-platform PACKAGES ${VITALS_PC_FMT} zlib LIBS ${VITALS_PC_THREADS})
vitals_pkgconfig(vitals-profiler "vitals: the profiler (record_function, traces)" LIBRARY vitals_profiler_bridge
    PARTS vitals-platform PACKAGES ${VITALS_PC_FMT} zlib LIBS ${VITALS_PC_THREADS})
vitals_pkgconfig(vitals-timer "vitals: the Timer, a torch-style micro-benchmark timer" LIBRARY vitals_timer
    PARTS vitals-stats vitals-profiler vitals-platform PACKAGES ${VITALS_PC_FMT})
set(VITALS_PC_KERNEL_PARTS vitals-profiler vitals-platform)
if(VITALS_HAS_CUDA)
    # As vitals::cuda: the static CUDA runtime, and the anchor that keeps the hooks.
    vitals_pkgconfig(vitals-cuda "vitals: the CUDA side of the platform, the Timer and the profiler"
        LIBRARY vitals_cuda PARTS vitals-profiler vitals-platform PACKAGES ${VITALS_PC_FMT}
        LIBS -Wl,--undefined=vitals_cuda_link_anchor -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lrt
             ${VITALS_PC_THREADS} ${VITALS_PC_DL})
    list(PREPEND VITALS_PC_KERNEL_PARTS vitals-cuda)
endif()
vitals_pkgconfig(vitals-kernels "vitals: the kernel set (matmul, softmax, ...)" LIBRARY vitals_kernels
    PARTS ${VITALS_PC_KERNEL_PARTS} PACKAGES ${VITALS_PC_FMT} LIBS ${VITALS_PC_OPENMP})
vitals_pkgconfig(vitals-results "vitals: results files, reports and trace comparisons" LIBRARY vitals_results
    PARTS vitals-timer vitals-machine vitals-platform PACKAGES ${VITALS_PC_FMT} simdjson)
set(VITALS_PC_HISTORY_PACKAGES ${VITALS_PC_FMT} sqlite3)
if(VITALS_HAS_POSTGRESQL)
    list(APPEND VITALS_PC_HISTORY_PACKAGES libpq)
endif()
vitals_pkgconfig(vitals-history "vitals: the history of runs (SQLite, PostgreSQL)" LIBRARY vitals_history
    PARTS vitals-results vitals-stats vitals-platform PACKAGES ${VITALS_PC_HISTORY_PACKAGES})
vitals_pkgconfig(vitals-runner "vitals: cases, VITALS_MAIN and the vitals command line" LIBRARY vitals_runner
    PARTS vitals-results vitals-timer vitals-history vitals-machine vitals-platform PACKAGES ${VITALS_PC_FMT} re2
    LIBS ${VITALS_PC_THREADS})
set(VITALS_PC_ALL_PARTS vitals-runner vitals-history vitals-results vitals-kernels vitals-timer vitals-profiler
    vitals-stats vitals-platform)
vitals_pkgconfig(vitals "vitals: C++ micro-benchmarks with a torch-style Timer (every part)"
    PARTS ${VITALS_PC_ALL_PARTS})
install(FILES ${VITALS_PC_FILES} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
