// The embedder gate's reference: dlib itself (Debian's libdlib-dev) running
// dlib_face_recognition_resnet_model_v1.dat on the chips the app aligned.
//
//   dlib_reference MODEL.dat CHIP.rgb ...
//
// Each CHIP is one 150x150 face chip as the app aligned it: 8-bit RGB, row by row. dlib takes
// it whole (its input layer subtracts its means and scales), so the card's preprocessing is
// held to dlib's as well as the network. Prints one JSON object:
// {"means": [r, g, b], "descriptors": [[128 numbers], ...]}, a value that is not a finite
// number written as null.
//
// The network is the one dlib's examples/dnn_face_recognition_ex.cpp declares.
#include <dlib/dnn.h>

#include <cmath>
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
        std::cerr << "usage: dlib_reference MODEL.dat CHIP.rgb ...\n";
        return 2;
    }
    anet_type net;
    try {
        deserialize(argv[1]) >> net;
    } catch (const std::exception& e) {
        std::cerr << "dlib_reference: cannot read the model: " << e.what() << ": " << argv[1] << "\n";
        return 2;
    }
    const long side = 150, bytes = 3 * side * side;
    const auto& input = net.input_layer();
    std::printf("{\"means\":[%.9g,%.9g,%.9g],\"descriptors\":[", input.get_avg_red(),
                input.get_avg_green(), input.get_avg_blue());
    for (int i = 2; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        std::vector<unsigned char> data(bytes);
        if (!in.read(reinterpret_cast<char*>(data.data()), bytes) || in.peek() != EOF) {
            std::cerr << "dlib_reference: not one 150x150 RGB chip: " << argv[i] << "\n";
            return 2;
        }
        matrix<rgb_pixel> chip(side, side);
        for (long r = 0; r < side; ++r)
            for (long c = 0; c < side; ++c) {
                const unsigned char* p = &data[3 * (r * side + c)];
                chip(r, c) = rgb_pixel(p[0], p[1], p[2]);
            }
        const matrix<float, 0, 1> descriptor = net(chip);
        std::printf("%s[", i > 2 ? "," : "");
        for (long j = 0; j < descriptor.size(); ++j) {
            const float v = descriptor(j);
            if (std::isfinite(v))
                std::printf("%s%.9g", j ? "," : "", v);
            else
                std::printf("%snull", j ? "," : "");
        }
        std::printf("]");
    }
    std::printf("]}\n");
    return 0;
}
