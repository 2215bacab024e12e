import { Matches } from 'class-validator';

/** An absolute URL path such as /v1/workflow, in RFC 3986 path characters. */
export const IsRoutePath = () =>
  Matches(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, {
    message: 'must be an absolute URL path such as /v1/workflow',
  });
