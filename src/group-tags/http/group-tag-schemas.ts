import { Type } from '@sinclair/typebox';
import { GROUP_TAG_LIMITS } from '../group-tag.js';

/** The Group Tag part of the wire (Explo's Group Tag API), field names as its reference has them. */

export const GROUP_TAG_TAGS = ['Customer API'];

const TagName = (description: string) =>
  Type.String({ minLength: 1, maxLength: GROUP_TAG_LIMITS.nameMaxLength, description, examples: ['sales'] });

export const NameBody = Type.Object({ name: TagName("The tag's name.") }, { additionalProperties: false });
export const RenameBody = Type.Object(
  { name: TagName("The tag's current name."), new_name: TagName('Its new name.') },
  { additionalProperties: false },
);

const GroupTagJson = Type.Object({ name: Type.String() });
export const GroupTagsResponse = Type.Object({ success: Type.Literal(1), group_tags: Type.Array(GroupTagJson) });
export const GroupTagResponse = Type.Object({ success: Type.Literal(1), group_tag: GroupTagJson });
export const TagDeletedResponse = Type.Object({ success: Type.Literal(1) });
