import type { IncomingMessage } from 'node:http';
import type { Type } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  type OnGatewayConnection,
  type OnGatewayDisconnect,
} from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { INVALID_FRAME, type InvalidFrame } from './interlude-ws.adapter';
import { GatewayService } from './gateway.service';

/**
 * The WebSocket face at a configured path (NAT's message schema). The class is made per path, as the
 * HTTP controllers are; it only routes messages by `type` to GatewayService.
 */
export function createWorkflowGateway(path: string): Type {
  @WebSocketGateway({ path })
  class WorkflowGateway implements OnGatewayConnection, OnGatewayDisconnect {
    constructor(private readonly gateway: GatewayService) {}

    handleConnection(socket: WebSocket, req: IncomingMessage): void {
      this.gateway.open(socket, req);
    }

    handleDisconnect(socket: WebSocket): void {
      this.gateway.close(socket);
    }

    @SubscribeMessage('user_message')
    onUserMessage(@ConnectedSocket() socket: WebSocket, @MessageBody() message: unknown): void {
      this.gateway.userMessage(socket, message);
    }

    @SubscribeMessage('user_interaction_message')
    onInteraction(@ConnectedSocket() socket: WebSocket, @MessageBody() message: unknown): void {
      this.gateway.interactionMessage(socket, message);
    }

    @SubscribeMessage('auth_message')
    onAuth(@ConnectedSocket() socket: WebSocket, @MessageBody() message: unknown): void {
      this.gateway.authMessage(socket, message);
    }

    @SubscribeMessage('stop_message')
    onStop(@ConnectedSocket() socket: WebSocket): void {
      this.gateway.stop(socket);
    }

    @SubscribeMessage(INVALID_FRAME)
    onInvalidFrame(@ConnectedSocket() socket: WebSocket, @MessageBody() frame: InvalidFrame): void {
      this.gateway.invalidFrame(socket, frame);
    }
  }
  return WorkflowGateway;
}
