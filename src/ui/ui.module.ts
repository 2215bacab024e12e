import { Module, type DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { PageFiles, type PagePaths } from './page-files';
import { PageSession } from './page-session.provider';
import { UiController } from './ui.controller';

/** The built-in page (chat, every prompt type, approvals inbox) at `general.front_end.ui_path`. */
@Module({})
export class UiModule {
  static forRoot(path: string, paths: PagePaths): DynamicModule {
    return {
      module: UiModule,
      imports: [RouterModule.register([{ path, module: UiModule }])],
      controllers: [UiController],
      providers: [{ provide: PageFiles, useFactory: () => new PageFiles(paths) }, PageSession],
    };
  }
}
