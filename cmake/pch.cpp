// The translation unit that builds limbic's shared precompiled headers (cmake/Limbic.cmake, LIMBIC_PCH).
