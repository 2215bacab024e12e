import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthDto } from '../core/dto/responses.dto';

@ApiTags('Health')
@Controller('health')
export class HealthController {
  @Get()
  @ApiOperation({ summary: 'Liveness: the server is up and answering' })
  @ApiOkResponse({ type: HealthDto })
  health(): HealthDto {
    return { status: 'healthy' };
  }
}
