# vcpkg overlay port that builds oxir from this source tree:
#   vcpkg install oxir --overlay-ports=<oxir checkout>/packaging/vcpkg
# (in manifest mode: add "oxir" to your vcpkg.json and pass the same --overlay-ports / set
# VCPKG_OVERLAY_PORTS). For a registry port, replace SOURCE_PATH with vcpkg_from_github(...)
# pointing at a release tag.
set(VCPKG_BUILD_TYPE release)  # header-only: one configuration is enough

get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    -DOXIR_BUILD_TESTS=OFF
    -DOXIR_BUILD_EXAMPLES=OFF
)
vcpkg_cmake_install()
# oxir installs its package files to share/cmake/oxir; vcpkg wants them in share/oxir.
vcpkg_cmake_config_fixup(CONFIG_PATH share/cmake/oxir)

file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/lib" "${CURRENT_PACKAGES_DIR}/debug")

if(EXISTS "${SOURCE_PATH}/LICENSE")
  vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
else()
  file(WRITE "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright" "See the oxir source repository.\n")
endif()
