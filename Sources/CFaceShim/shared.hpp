// What the two detectors of the shim share (not part of its C interface).
#pragma once

#include <string>

namespace thumbd_faces {

// A malloc'd copy for a C caller, who frees it with fd_free.
char *copied(const std::string &text);

// Once per process: OpenCV's thread pool and OpenCL off, its log silent.
void setUp();

}  // namespace thumbd_faces
