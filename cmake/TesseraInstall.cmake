# Installs the library, its headers as <tessera/...> and a package config so that
# find_package(tessera) + target_link_libraries(app tessera::tessera) works from an install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tessera EXPORT tesseraTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/TesseraKokkos.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

# The config records the Kokkos of this build (Kokkos_DIR, Kokkos_VERSION and TESSERA_KOKKOS_BACKENDS,
# set by tessera_find_kokkos): it looks there first and refuses a Kokkos without those backends.
# Kokkos_DIR stays absolute (it is outside the install prefix); a moved Kokkos is still found by
# the config's fallback search.
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tesseraConfig.cmake.in
  ${CMAKE_BINARY_DIR}/tesseraConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tesseraConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tesseraConfig.cmake ${CMAKE_BINARY_DIR}/tesseraConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
