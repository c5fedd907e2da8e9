# Finds Kokkos and repairs the imported target where a distribution's export is broken. Used by
# tessera's own build (tessera_find_kokkos) and by the installed package config
# (tesseraConfig.cmake), which finds the Kokkos tessera was built with and checks its backends.
#
# Debian's libtrilinos-kokkos-dev (Kokkos 3.4.1) exports Kokkos::kokkos with an include directory
# that does not exist; its headers live in Kokkos_INCLUDE_DIRS (/usr/include/trilinos).
macro(tessera_repair_kokkos_target)
  if(Kokkos_INCLUDE_DIRS AND TARGET Kokkos::kokkos)
    get_target_property(_tessera_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
    set(_tessera_kokkos_inc_ok TRUE)
    foreach(_dir IN LISTS _tessera_kokkos_inc)
      if(NOT _dir MATCHES "^\\$<" AND NOT EXISTS "${_dir}")
        set(_tessera_kokkos_inc_ok FALSE)
      endif()
    endforeach()
    if(NOT _tessera_kokkos_inc_ok)
      set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${Kokkos_INCLUDE_DIRS}")
    endif()
  endif()
endmacro()

# The backends of the Kokkos just found, upper case (SERIAL, OPENMP, CUDA, ...), into <out>.
# Kokkos_DEVICES is set by the package configs of Kokkos 3.x (Debian's 3.4.1 included) and 4.x;
# a Kokkos without it still sets Kokkos_ENABLE_<BACKEND> for the backends it has.
function(tessera_kokkos_backends out)
  set(_backends "")
  if(DEFINED Kokkos_DEVICES)
    foreach(_dev IN LISTS Kokkos_DEVICES)
      string(TOUPPER "${_dev}" _dev)
      list(APPEND _backends ${_dev})
    endforeach()
  else()
    foreach(_dev SERIAL OPENMP THREADS CUDA HIP SYCL OPENMPTARGET OPENACC HPX)
      if(Kokkos_ENABLE_${_dev})
        list(APPEND _backends ${_dev})
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES _backends)
  set(${out} "${_backends}" PARENT_SCOPE)
endfunction()

# tessera's build: any Kokkos the user points at (Kokkos_ROOT, Kokkos_DIR, CMAKE_PREFIX_PATH).
# TesseraInstall.cmake records the one found here (Kokkos_DIR, backends) in the package config.
macro(tessera_find_kokkos)
  find_package(Kokkos REQUIRED)
  tessera_repair_kokkos_target()
  if(NOT TARGET Kokkos::kokkos)
    message(FATAL_ERROR "tessera: find_package(Kokkos) did not provide the Kokkos::kokkos target")
  endif()
  tessera_kokkos_backends(TESSERA_KOKKOS_BACKENDS)
  message(STATUS "tessera: Kokkos ${Kokkos_VERSION} (${TESSERA_KOKKOS_BACKENDS}) from ${Kokkos_DIR}")
endmacro()
