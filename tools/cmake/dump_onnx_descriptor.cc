// Writes the descriptor of ONNX's message classes, as the installed libonnx_proto holds it, to
// the file argv[1] (a FileDescriptorSet), and the .proto name it was compiled from to standard
// output. tools/cmake/static_runtime.cmake runs it at configure time and gives the descriptor
// to protoc, which writes the same classes again for the onnx-shapelint binary to link
// statically.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const google::protobuf::FileDescriptor* file = ONNX_NAMESPACE::ModelProto::descriptor()->file();
  if (file->dependency_count() != 0) return 3;  // protoc would need those files too
  google::protobuf::FileDescriptorSet set;
  file->CopyTo(set.add_file());
  std::ofstream out(argv[1], std::ios::binary);
  if (!set.SerializeToOstream(&out)) return 4;
  out.close();
  if (!out) return 4;
  std::cout << file->name();
  return 0;
}
