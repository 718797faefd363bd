// The library's headers are C++; VoiceProcessingBridge includes them. This module only carries
// the pkg-config flags (include path, WEBRTC_POSIX) and the link to its dependents.
