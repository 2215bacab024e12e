'use strict';
/**
 * The start-up baseline: a bare NestJS 12 app on Express with one `GET /health` route, as small as a
 * Nest service gets. `node bench/servers/bare-nest-main.js <port>`; logs off.
 */
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { Controller, Get, Module } = require('@nestjs/common');

class HealthController {
  health() {
    return { status: 'ok' };
  }
}
const health = Object.getOwnPropertyDescriptor(HealthController.prototype, 'health');
Get()(HealthController.prototype, 'health', health);
Controller('health')(HealthController);

class HealthModule {}
Module({ controllers: [HealthController] })(HealthModule);

NestFactory.create(HealthModule, { logger: false })
  .then((app) => app.listen(Number(process.argv[2]), '127.0.0.1'))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
