import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Min, ValidateBy } from 'class-validator';
import { IfPresent } from '../validation/if-present.decorator';

/** `general.front_end.cors` of the config file: declared here, where CORS is answered. */
export class CorsConfig {
  @IfPresent()
  @ValidateBy({
    name: 'noWildcardWithCredentials',
    validator: {
      validate: (origins: unknown, args) =>
        !(Array.isArray(origins) && origins.includes('*') && (args?.object as CorsConfig).allow_credentials),
      defaultMessage: () =>
        "'*' cannot be combined with allow_credentials: true (any site could act as the user); list the origins",
    },
  })
  @IsArray()
  @IsString({ each: true })
  allow_origins: string[] = [];
  @IsOptional() @IsString() allow_origin_regex: string | null = null;
  @IfPresent() @IsArray() @IsString({ each: true }) allow_methods: string[] = ['GET', 'POST', 'OPTIONS'];
  @IfPresent() @IsArray() @IsString({ each: true }) allow_headers: string[] = ['*'];
  @IfPresent() @IsBoolean() allow_credentials = false;
  @IfPresent() @IsArray() @IsString({ each: true }) expose_headers: string[] = [];
  @IfPresent() @Min(0) @IsInt() max_age = 600;
}
