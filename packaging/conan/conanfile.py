# Conan 2 recipe for oxir (header-only). From the repository root:
#   conan create packaging/conan --build=missing
# Consumers: `requires = "oxir/<version>"`, then with CMakeDeps:
#   find_package(oxir CONFIG REQUIRED)  +  target_link_libraries(app PRIVATE oxir::oxir)
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load
from conan.tools.layout import basic_layout

required_conan_version = ">=2.0"


class OxirConan(ConanFile):
    name = "oxir"
    description = "Header-only C++20 library for the ONNX intermediate representation"
    topics = ("onnx", "ir", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    no_copy_source = True

    @property
    def _repo_root(self):
        return os.path.join(self.recipe_folder, "..", "..")

    def set_version(self):
        # The single source of the version: include/oxir/core/version.hpp.
        if self.version:
            return
        text = load(self, os.path.join(self._repo_root, "include", "oxir", "core", "version.hpp"))
        parts = [re.search(rf"#define OXIR_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def export_sources(self):
        copy(self, "include/*", src=self._repo_root, dst=self.export_sources_folder)
        copy(self, "LICENSE*", src=self._repo_root, dst=self.export_sources_folder)

    def layout(self):
        basic_layout(self, src_folder=".")

    def requirements(self):
        self.requires("range-v3/0.12.0")

    def package_id(self):
        self.info.clear()

    def validate(self):
        if self.settings.get_safe("compiler.cppstd"):
            check_min_cppstd(self, 20)

    def package(self):
        copy(self, "*.hpp", src=os.path.join(self.source_folder, "include"),
             dst=os.path.join(self.package_folder, "include"))
        copy(self, "LICENSE*", src=self.source_folder, dst=os.path.join(self.package_folder, "licenses"))

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "oxir")
        self.cpp_info.set_property("cmake_target_name", "oxir::oxir")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
