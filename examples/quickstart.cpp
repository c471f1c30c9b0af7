// The README's first example: time x @ y on 128x128 float matrices, as the tutorial does.
#include <vitals/vitals.hpp>

#include <Eigen/Core>
#include <iostream>

int main() {
    Eigen::MatrixXf x = Eigen::MatrixXf::Random(128, 128);
    Eigen::MatrixXf y = Eigen::MatrixXf::Random(128, 128);
    Eigen::MatrixXf z(128, 128);

    vitals::Timer timer({
        .stmt = VITALS_CODE(z.noalias() = x * y),
        .label = "x @ y",
        .sub_label = "128x128",
        .description = "eigen f32",
    });
    vitals::Measurement m = timer.blocked_autorange({.min_run_time = 0.5});
    std::cout << m << '\n';
    std::cout << "median " << m.median() * 1e6 << " us over " << m.times().size() << " blocks of "
              << m.number_per_run() << " calls\n";
}
