// The embedder gate's reference: dlib itself (Debian's libdlib-dev) running
// dlib_face_recognition_resnet_model_v1.dat on the tensors the app made.
//
//   dlib_reference MODEL.dat TENSOR.f32 ...
//
// Each TENSOR is what the app feeds the converted form: one 150x150 chip as planar RGB, each
// channel already minus the input layer's mean and divided by 256 (little-endian f32). The
// tensor goes into the network below its input layer, so both sides see the same numbers; the
// means the app used are printed first so the gate can check them against the file's.
// Prints one JSON object: {"means": [r, g, b], "descriptors": [[128 floats], ...]}.
//
// The network is the one dlib's examples/dnn_face_recognition_ex.cpp declares.
#include <dlib/dnn.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>

using namespace dlib;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = add_prev1<block<N, BN, 1, tag1<SUBNET>>>;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<block<N, BN, 2, tag1<SUBNET>>>>>>;

template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, SUBNET>>>>>;

template <int N, typename SUBNET> using ares = relu<residual<block, N, affine, SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block, N, affine, SUBNET>>;

template <typename SUBNET> using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET> using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;

using anet_type = loss_metric<fc_no_bias<128, avg_pool_everything<alevel0<alevel1<alevel2<
    alevel3<alevel4<max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2,
    input_rgb_image_sized<150>>>>>>>>>>>>>;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: dlib_reference MODEL.dat TENSOR.f32 ...\n";
        return 2;
    }
    anet_type net;
    try {
        deserialize(argv[1]) >> net;
    } catch (const std::exception& e) {
        std::cerr << "dlib_reference: cannot read the model: " << e.what() << ": " << argv[1] << "\n";
        return 2;
    }
    const long side = 150, values = 3 * side * side;
    const auto& input = net.input_layer();
    std::printf("{\"means\":[%.9g,%.9g,%.9g],\"descriptors\":[", input.get_avg_red(),
                input.get_avg_green(), input.get_avg_blue());
    for (int i = 2; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        std::vector<float> data(values);
        if (!in.read(reinterpret_cast<char*>(data.data()), values * sizeof(float)) || in.peek() != EOF) {
            std::cerr << "dlib_reference: not one 3x150x150 f32 tensor: " << argv[i] << "\n";
            return 2;
        }
        resizable_tensor x(1, 3, side, side);
        std::copy(data.begin(), data.end(), x.host());
        // Below the input layer: the tensor is what to_tensor would have made of the chip.
        const tensor& out = net.subnet().forward(x);
        std::printf("%s[", i > 2 ? "," : "");
        const float* d = out.host();
        for (long j = 0; j < out.size(); ++j) std::printf("%s%.9g", j ? "," : "", d[j]);
        std::printf("]");
    }
    std::printf("]}\n");
    return 0;
}
