/*
 * AscendSim: AscendCL umbrella header (acl/acl.h).
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "ops/acl_dvpp.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
