// nvc in.cu out.cubin [ptx]: compiles a generated kernel as tessera's kernel cache does (NVRTC, sm_90,
// C++17), printing ptxas' register count; with `ptx`, writes the PTX for compute_90 instead.
#include <nvrtc.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string src = ss.str();
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, src.c_str(), "k.cu", 0, nullptr, nullptr);
  const bool ptx = argc > 3 && std::string(argv[3]) == "ptx";
  const char* opts[] = {ptx ? "--gpu-architecture=compute_90" : "--gpu-architecture=sm_90", "-std=c++17",
                        "--ptxas-options=-v"};
  nvrtcResult r = nvrtcCompileProgram(prog, ptx ? 2 : 3, opts);
  size_t n;
  nvrtcGetProgramLogSize(prog, &n);
  std::string log(n, 0);
  nvrtcGetProgramLog(prog, log.data());
  if (r != NVRTC_SUCCESS) {
    std::fprintf(stderr, "%s\n", log.c_str());
    return 1;
  }
  std::fprintf(stderr, "%s", log.c_str());
  if (ptx) {
    nvrtcGetPTXSize(prog, &n);
    std::vector<char> text(n);
    nvrtcGetPTX(prog, text.data());
    std::ofstream(argv[2]).write(text.data(), n - 1);  // without the terminating NUL
    return 0;
  }
  nvrtcGetCUBINSize(prog, &n);
  std::vector<char> cubin(n);
  nvrtcGetCUBIN(prog, cubin.data());
  std::ofstream(argv[2], std::ios::binary).write(cubin.data(), n);
}
