import { Injectable } from '@nestjs/common';

/** Open long-lived connections, counted by the faces that hold them and read by /metrics. */
@Injectable()
export class ConnectionCount {
  websockets = 0;
}
