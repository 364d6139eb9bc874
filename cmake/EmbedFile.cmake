# cmake -DINPUT=file -DOUTPUT=file.cpp -P EmbedFile.cmake : writes the bytes of INPUT as a C++ array.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" len)
math(EXPR size "${len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT} "// Generated at build time from ${INPUT}. Do not edit.\n#include <cstddef>\n#include <cstdint>\nnamespace limbic::messages {\nextern const uint8_t kBinarySchema[] = {${bytes}};\nextern const size_t kBinarySchemaSize = ${size};\n}\n")
