# Finds Kokkos and repairs the imported target where a distribution's export is broken.
#
# Debian's libtrilinos-kokkos-dev (Kokkos 3.4.1) exports Kokkos::kokkos with an include directory
# that does not exist; its headers live in Kokkos_INCLUDE_DIRS (/usr/include/trilinos).
macro(tessera_find_kokkos)
  find_package(Kokkos REQUIRED)
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
  if(NOT TARGET Kokkos::kokkos)
    message(FATAL_ERROR "tessera: find_package(Kokkos) did not provide the Kokkos::kokkos target")
  endif()
endmacro()
