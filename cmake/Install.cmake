# Installing and packaging (issue 22 item 3). Programs go to <prefix>/bin (limbic_executable), the data they read
# to <prefix>/share/limbic laid out as in the source tree (common/paths finds it relative to the program), the
# Python client where Debian's python3 looks, the documentation to <prefix>/share/doc/limbic.
#   cmake --install build --prefix /opt/limbic      an installed tree
#   (cd build && cpack -G DEB)                      limbic_<version>_<arch>.deb (needs dpkg-dev)
set(limbic_data ${CMAKE_INSTALL_DATADIR}/limbic)
install(DIRECTORY configs experiments deploy DESTINATION ${limbic_data}
        PATTERN node_modules EXCLUDE)
install(DIRECTORY services/affect/config DESTINATION ${limbic_data}/services/affect)
install(DIRECTORY services/hwio/config DESTINATION ${limbic_data}/services/hwio)
# Schemas: the .fbs as in the source tree and the binary schema every tool embeds (for other languages' tools).
install(DIRECTORY messages/ DESTINATION ${limbic_data}/messages FILES_MATCHING PATTERN "*.fbs")
if(TARGET limbic_messages)
  install(FILES ${CMAKE_BINARY_DIR}/messages/limbic.bfbs DESTINATION ${limbic_data}/messages)
endif()
if(TARGET limbic_python)
  # Debian's python3 searches <prefix>/lib/python3/dist-packages for /usr and /usr/local.
  install(DIRECTORY ${CMAKE_BINARY_DIR}/python/limbic DESTINATION lib/python3/dist-packages
          PATTERN ".built" EXCLUDE PATTERN "__pycache__" EXCLUDE)
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME limbic)
set(CPACK_PACKAGE_VENDOR limbic)
set(CPACK_PACKAGE_CONTACT "limbic maintainers <limbic@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Emotion-modulated robot navigation services on a FlatBuffers/ZeroMQ bus")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Shared-library dependencies from the programs themselves (dpkg-shlibdeps); the Python client's are recommends.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-zmq, python3-flatbuffers, python3-zstandard, python3-lz4")
include(CPack)
