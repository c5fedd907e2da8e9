#include <nvrtc.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
int main(int argc, char** argv) {
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string src = ss.str();
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90", "-std=c++17"};
  if (nvrtcCompileProgram(p, 2, opts) != NVRTC_SUCCESS) return 1;
  size_t n;
  nvrtcGetCUBINSize(p, &n);
  std::string c(n, 0);
  nvrtcGetCUBIN(p, c.data());
  std::ofstream(argv[2], std::ios::binary).write(c.data(), n);
}
