import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller';
import { McpClients } from './mcp-clients.service';

@Module({
  controllers: [McpController],
  providers: [McpClients],
})
export class McpModule {}
