#include "common/robot/wiring.hpp"

namespace limbic::robot {

RobotDescription BodyOption(runtime::ServiceContext& ctx, const std::string& use) {
  return LoadRobotDescription(ctx.Option<std::string>(
      "body", "marvin", "robot description (configs/robots: marvin, itchy, scratchy, tank; or a .yaml path): " + use));
}

}  // namespace limbic::robot
