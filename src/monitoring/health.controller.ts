import { Controller, Get, Res } from '@nestjs/common';
import { Public } from '../core/identity/public.decorator';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { HealthDto, ReadinessDto } from '../http-responders/dto/responses.dto';
import { ReadinessService } from './readiness.service';

@ApiTags('Health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get()
  @ApiOperation({ summary: 'Liveness: the server is up and answering' })
  @ApiOkResponse({ type: HealthDto })
  health(): HealthDto {
    return { status: 'healthy' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the stores answer' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto })
  async ready(@Res() res: Response): Promise<void> {
    const { ready, checks } = await this.readiness.run();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  }
}
